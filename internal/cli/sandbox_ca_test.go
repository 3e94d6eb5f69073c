package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/testcert"
)

// TestSandboxTrustCAConfig: the authorities the sandbox trusts come from
// EINVOICE_SANDBOX_TRUST_CA (a comma list) and --sandbox-trust-ca
// (repeatable, each a comma list), and every certificate of each file is
// read; a missing or empty file is an error naming the flag.
func TestSandboxTrustCAConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := testcert.NewCA(t, "A"), testcert.NewCA(t, "B")
	both := filepath.Join(dir, "both.pem")
	one := filepath.Join(dir, "one.pem")
	empty := filepath.Join(dir, "empty.pem")
	for f, text := range map[string]string{both: a.CertPEM + b.CertPEM, one: a.CertPEM, empty: "no PEM here"} {
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := envDefaults(func(k string) string {
		if k == "EINVOICE_SANDBOX_TRUST_CA" {
			return both + " , "
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.sandboxFlags(fs)
	if err := fs.Parse([]string{"--sandbox-trust-ca", one, "--sandbox-trust-ca=" + one + "," + one}); err != nil {
		t.Fatal(err)
	}
	if want := []string{both, one, one, one}; !slices.Equal(cfg.SandboxTrustCA, want) {
		t.Fatalf("SandboxTrustCA = %q, want %q", cfg.SandboxTrustCA, want)
	}
	cas, err := cfg.trustedCAs()
	if err != nil || len(cas) != 5 || cas[1].Subject.CommonName != "B" {
		t.Fatalf("trustedCAs = %d certificates, %v", len(cas), err)
	}
	for _, f := range []string{empty, filepath.Join(dir, "missing.pem")} {
		cfg.SandboxTrustCA = []string{f}
		if _, err := cfg.trustedCAs(); err == nil || !strings.Contains(err.Error(), "--sandbox-trust-ca") {
			t.Errorf("%s: %v, want an error naming --sandbox-trust-ca", f, err)
		}
	}
}

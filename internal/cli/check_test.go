package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testcert"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestCheckCommand: einvoice check passes for a new tenant against the
// built-in sandbox (run for the check), with a certificate too; with an
// expired certificate stored it fails (exit status 1), naming the step and
// saying what to do.
func TestCheckCommand(t *testing.T) {
	t.Parallel()
	dsn := migrated.SQLite(t)
	const tin = "C2584563200"
	code, id, errOut := servetest.Run(t, dsn, "tenant", "create", "--name", "Check Sdn. Bhd.", "--tin", tin, "--id-value", "202001012345")
	id = strings.TrimSpace(id)
	if code != 0 {
		t.Fatalf("tenant create = %d: %s", code, errOut)
	}
	code, out, errOut := servetest.Run(t, dsn, "check", "--tenant", id)
	if code != 0 || !strings.Contains(out, "login") || !strings.Contains(out, "certificate  skipped") || !strings.HasSuffix(out, "passed\n") {
		t.Errorf("check without a certificate = %d\n%s%s", code, out, errOut)
	}

	setCert := func(certPEM, keyPEM string) {
		store := servetest.Store(t, dsn)
		ten, err := store.GetTenant(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		ten.Authority.CertificatePEM, ten.Authority.PrivateKeyPEM = certPEM, keyPEM
		ten.UpdatedAt = time.Now()
		if err := store.UpdateTenant(t.Context(), ten); err != nil {
			t.Fatal(err)
		}
	}
	// A self-signed certificate: the sandbox would answer DS329.
	setCert(testcert.New(t, "Check Sdn. Bhd.", tin))
	code, out, errOut = servetest.Run(t, dsn, "check", "--tenant", id)
	if code != 1 || !strings.Contains(out, "certificate  failed") || !strings.Contains(out, "DS329") || !strings.Contains(out, "einvoice sandbox issue-cert") {
		t.Errorf("check with a self-signed certificate = %d\n%s%s", code, out, errOut)
	}

	// One from the sandbox's test certificate authority.
	dir := t.TempDir()
	if code, out, errOut := servetest.Run(t, dsn, "sandbox", "issue-cert", "--tin", tin, "--name", "Check Sdn. Bhd.",
		"--out-cert", filepath.Join(dir, "c.pem"), "--out-key", filepath.Join(dir, "k.pem")); code != 0 {
		t.Fatalf("sandbox issue-cert = %d\n%s%s", code, out, errOut)
	}
	certPEM, err := os.ReadFile(filepath.Join(dir, "c.pem"))
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, "k.pem"))
	if err != nil {
		t.Fatal(err)
	}
	setCert(string(certPEM), string(keyPEM))
	code, out, errOut = servetest.Run(t, dsn, "check", "--tenant", id)
	if code != 0 || strings.Contains(out, "failed") || !strings.Contains(out, "signature    passed") {
		t.Errorf("check with a certificate = %d\n%s%s", code, out, errOut)
	}

	setCert(testcert.Make(t, testcert.Options{Organisation: "Check Sdn. Bhd.", TIN: tin,
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour)}))
	code, out, errOut = servetest.Run(t, dsn, "check", "--tenant", id)
	if code != 1 || !strings.Contains(out, "certificate  failed") || !strings.Contains(out, "expired on") || !strings.Contains(out, "-> ") ||
		!strings.Contains(errOut, "the go-live check failed: certificate") {
		t.Errorf("check with an expired certificate = %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := servetest.Run(t, dsn, "check"); code != 2 || !strings.Contains(errOut, "--tenant is required") {
		t.Errorf("check without --tenant = %d %s", code, errOut)
	}
}

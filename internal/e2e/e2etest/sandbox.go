package e2etest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/servetest"
)

// SandboxClient registers a sandbox client bound to tin in the database at
// dsn (`einvoice sandbox client add`) and returns its id and secret.
func SandboxClient(t *testing.T, dsn, tin string) (id, secret string) {
	t.Helper()
	code, out, errOut := servetest.Run(t, dsn, "sandbox", "client", "add", "--tin", tin)
	m := regexp.MustCompile(`^client_id: (\S+)\nclient_secret: (\S+)\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("sandbox client add = %d %q %s", code, out, errOut)
	}
	return m[1], m[2]
}

// SandboxCert issues a signing certificate for the organisation and TIN
// from the test certificate authority of the built-in sandbox on the
// database dsn, through `einvoice sandbox issue-cert`, as a user would:
// documents signed with it are ones the sandbox trusts. It returns the PEM
// certificate and key.
func SandboxCert(t *testing.T, dsn, organisation, tin string) (certPEM, keyPEM string) {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	code, out, errOut := servetest.Run(t, dsn, "sandbox", "issue-cert", "--tin", tin, "--name", organisation,
		"--out-cert", certFile, "--out-key", keyFile)
	if code != 0 {
		t.Fatalf("sandbox issue-cert: exit %d\n%s%s", code, out, errOut)
	}
	c, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	k, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(c), string(k)
}

// PrivateKeyLine returns a line of a PEM private key's base64 that only the
// private part encodes (the second-last: the CRT coefficient), never the
// modulus, which the certificate shows too.
func PrivateKeyLine(keyPEM string) string {
	lines := strings.Split(strings.TrimSpace(keyPEM), "\n")
	return lines[len(lines)-2]
}

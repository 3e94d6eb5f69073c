package cli_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/cli"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestCommandLines runs every command with its flags before, between and
// after its arguments: each order works, and an unknown flag or an extra
// argument, wherever it stands, is exit status 2 with the problem and the
// command's usage on stderr. In the arguments, {DB} is a SQLite file,
// {SANDBOX} the sandbox's, {TENANT} a tenant's id and {KEY} the id of a key
// made for the row.
func TestCommandLines(t *testing.T) {
	t.Parallel()
	dsn := migrated.SQLite(t)
	sandboxDB := migrated.SQLite(t)
	outDir := t.TempDir()
	tenantID := strings.TrimSpace(mustCLI(t, dsn, "tenant", "create", "--name", "Command Lines Sdn. Bhd.", "--tin", "C1234567890"))
	for _, tc := range []struct {
		args   string // split on spaces
		code   int
		stdout string // a regexp stdout must match
		stderr string // what stderr must contain
		listen bool   // serve or sandbox: stopped once it listens
	}{
		{args: "migrate --db {DB}", stderr: "database is up to date"},
		{args: "migrate extra --db {DB}", code: 2, stderr: `migrate: unexpected argument "extra"`},
		{args: "migrate --db {DB} extra", code: 2, stderr: `migrate: unexpected argument "extra"`},
		{args: "migrate --bogus --db {DB}", code: 2, stderr: "migrate: flag provided but not defined: -bogus"},
		{args: "migrate --db", code: 2, stderr: "migrate: flag needs an argument: -db"},

		{args: "tenant create --db {DB} --name First --tin C1234567890", stdout: `^[0-9a-f-]{36}\n$`},
		{args: "tenant create --name Second --tin C1234567890 --db {DB}", stdout: `^[0-9a-f-]{36}\n$`},
		{args: "tenant create --name Third extra --tin C1 --db {DB}", code: 2, stderr: `tenant create: unexpected argument "extra"`},
		{args: "tenant create --name Fourth --tin C1 --db {DB} -- --msic", code: 2, stderr: `tenant create: unexpected argument "--msic"`},
		{args: "tenant create --db {DB} --name Fifth", code: 2, stderr: "tenant create: --name and --tin are required"},

		{args: "tenant list --db {DB}", stdout: "Command Lines Sdn. Bhd."},
		{args: "tenant list extra --db {DB}", code: 2, stderr: `tenant list: unexpected argument "extra"`},
		{args: "tenant list --db {DB} extra", code: 2, stderr: `tenant list: unexpected argument "extra"`},
		{args: "tenant --db {DB} list", code: 2, stderr: "tenant: name the command first: einvoice tenant create|list"},
		{args: "tenant remove --db {DB}", code: 2, stderr: `unknown command "tenant remove"`},

		{args: "key create --read-only --tenant {TENANT} --db {DB}", stdout: `^eik_\S+\n$`},
		{args: "key create --db {DB} --tenant {TENANT} --read-only", stdout: `^eik_\S+\n$`},
		{args: "key create --read-only false --tenant {TENANT} --db {DB}", code: 2, stderr: `key create: unexpected argument "false" (a boolean flag takes its value after =, as in --read-only=false)`},
		{args: "key create --db {DB} --tenant {TENANT} extra", code: 2, stderr: `key create: unexpected argument "extra"`},
		{args: "key create --db {DB}", code: 2, stderr: "key create: --tenant is required"},

		{args: "key create --db {DB} --tenant {TENANT} --name Aisyah", stdout: `^eik_\S+\n$`},
		{args: "key list --db {DB} --tenant {TENANT}", stdout: `(?m)^ID\s+PREFIX.*NAME$[\s\S]*Aisyah$`},
		{args: "key list extra --tenant {TENANT} --db {DB}", code: 2, stderr: `key list: unexpected argument "extra"`},

		{args: "key revoke {KEY} --db {DB}", stderr: "revoked"},
		{args: "key revoke --db {DB} {KEY}", stderr: "revoked"},
		{args: "key revoke --db={DB} -- {KEY}", stderr: "revoked"},
		{args: "key revoke --db {DB}", code: 2, stderr: "key revoke: missing KEY_ID"},
		{args: "key revoke {KEY} --db {DB} {KEY}", code: 2, stderr: `key revoke: unexpected argument "`},
		{args: "key revoke --db {DB} {KEY} --bogus", code: 2, stderr: "key revoke: flag provided but not defined: -bogus"},

		{args: "serve --sandbox-faults --addr 127.0.0.1:0 --workers 0 --db {DB}", listen: true},
		{args: "serve extra --db {DB}", code: 2, stderr: `serve: unexpected argument "extra"`},
		{args: "serve --db {DB} --addr 127.0.0.1:0 extra", code: 2, stderr: `serve: unexpected argument "extra"`},
		{args: "serve --sandbox-rate-limits false --db {DB}", code: 2, stderr: "as in --sandbox-rate-limits=false"},
		{args: "serve --db {DB} --nope", code: 2, stderr: "serve: flag provided but not defined: -nope"},

		{args: "sandbox --sandbox-faults --addr 127.0.0.1:0 --db {SANDBOX}", listen: true},
		{args: "sandbox extra --db {SANDBOX}", code: 2, stderr: `sandbox: unexpected argument "extra"`},
		{args: "sandbox --db {SANDBOX} --addr 127.0.0.1:0 extra", code: 2, stderr: `sandbox: unexpected argument "extra"`},
		{args: "sandbox --workers 2 --db {SANDBOX}", code: 2, stderr: "sandbox: flag provided but not defined: -workers"},
		{args: "sandbox client add --tin C20000000010 --db {SANDBOX}", stdout: `^client_id: [0-9a-f-]{36}\nclient_secret: \S{40,}\n$`},
		{args: "sandbox client add --db {SANDBOX} --tin IG123456789 --id-type NRIC --id-value 900101015555 --name Ali", stdout: `^client_id: `},
		{args: "sandbox client add --tin C20000000010 --represents C30000000010,IG123456789 --db {SANDBOX}", stdout: `^client_id: `},
		{args: "sandbox client add --db {SANDBOX}", code: 2, stderr: "sandbox client add: --tin is required"},
		{args: "sandbox client add --tin X1 --db {SANDBOX}", code: 2, stderr: "sandbox client add: --tin "},
		{args: "sandbox client add --tin C20000000010 --id-type SSN --db {SANDBOX}", code: 2, stderr: "sandbox client add: --id-type must be"},
		{args: "sandbox client add --tin C20000000010 extra --db {SANDBOX}", code: 2, stderr: `sandbox client add: unexpected argument "extra"`},
		{args: "sandbox client remove --db {SANDBOX}", code: 2, stderr: "sandbox client: the command is add"},
		{args: "sandbox --sandbox-trust-ca {OUT}/none.pem --addr 127.0.0.1:0 --db {SANDBOX}", code: 1, stderr: "--sandbox-trust-ca: open"},

		{args: "sandbox ca --db {SANDBOX}", stdout: `^-----BEGIN CERTIFICATE-----\n`},
		{args: "sandbox ca extra --db {SANDBOX}", code: 2, stderr: `sandbox ca: unexpected argument "extra"`},
		{args: "sandbox issue-cert --tin C1234567890 --out-cert {OUT}/c.pem --out-key {OUT}/k.pem --db {SANDBOX}", stdout: `^issued a certificate for Sandbox Test Organisation \(TIN C1234567890\)`},
		{args: "sandbox issue-cert --db {SANDBOX} --pkcs12 {OUT}/c.p12 --password pw --tin C1234567890 --name Acme", stdout: `^issued a certificate for Acme`},
		{args: "sandbox issue-cert --db {SANDBOX} --out-cert {OUT}/c.pem --out-key {OUT}/k.pem", code: 2, stderr: "sandbox issue-cert: --tin is required"},
		{args: "sandbox issue-cert --tin C1234567890 --out-cert {OUT}/c.pem --db {SANDBOX}", code: 2, stderr: "sandbox issue-cert: give --out-cert and --out-key, or --pkcs12 and --password"},
		{args: "sandbox issue-cert --tin C1234567890 --pkcs12 {OUT}/c.p12 --db {SANDBOX}", code: 2, stderr: "sandbox issue-cert: --password is required with --pkcs12"},
		{args: "sandbox issue-cert --tin C1234567890 --pkcs12 {OUT}/c.p12 --password pw --out-key {OUT}/k.pem --db {SANDBOX}", code: 2, stderr: "exclude each other"},
		{args: "sandbox issue-cert extra --tin C1234567890 --pkcs12 {OUT}/c.p12 --password pw --db {SANDBOX}", code: 2, stderr: `sandbox issue-cert: unexpected argument "extra"`},
		{args: "sandbox issue-cert --tin C0001 --pkcs12 {OUT}/c.p12 --password pw --db {SANDBOX}", code: 1, stderr: `"C0001" is not a taxpayer's TIN`},

		{args: "version", stdout: `^einvoice \S+\n$`},
		{args: "version extra", code: 2, stderr: `version: unexpected argument "extra"`},
		{args: "version --db {DB}", code: 2, stderr: "version: flag provided but not defined: -db"},
		{args: "bogus --db {DB}", code: 2, stderr: `unknown command "bogus"`},
	} {
		args := strings.Fields(tc.args)
		keyID := ""
		for i, a := range args {
			if strings.Contains(a, "{KEY}") && keyID == "" {
				keyID = newKeyID(t, dsn, tenantID)
			}
			args[i] = strings.NewReplacer("{DB}", dsn, "{SANDBOX}", sandboxDB, "{TENANT}", tenantID, "{KEY}", keyID, "{OUT}", outDir).Replace(a)
		}
		t.Run(tc.args, func(t *testing.T) {
			code, stdout, stderr := runCommand(t, args, tc.listen)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) || !regexp.MustCompile(tc.stdout).MatchString(stdout) {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout matching %q, stderr with %q", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
			if tc.code == 2 {
				if stdout != "" || !strings.Contains(stderr, "Usage:") {
					t.Errorf("a refused command line printed %q on stdout and %q on stderr; want nothing, and the usage on stderr", stdout, stderr)
				}
			}
			if keyID != "" && tc.code == 0 && !keyRevoked(t, dsn, tenantID, keyID) {
				t.Errorf("key %s is not revoked", keyID)
			}
		})
	}
}

// TestCLI covers the scriptable administration commands.
func TestCLI(t *testing.T) {
	t.Parallel()
	dsn := migrated.SQLite(t)
	code, id, errOut := servetest.Run(t, dsn, "tenant", "create", "--name", "Scripted Sdn. Bhd.", "--tin", "C1234567890", "--msic", "62010")
	id = strings.TrimSpace(id)
	if code != 0 || !strings.HasPrefix(id, "0") || len(id) != 36 || strings.Contains(id, "\n") {
		t.Fatalf("tenant create = %d %q %s; want only the id on stdout", code, id, errOut)
	}
	code, key, _ := servetest.Run(t, dsn, "key", "create", "--tenant", id, "--read-only")
	if code != 0 || !servetest.KeyPattern.MatchString(strings.TrimSpace(key)) || strings.Count(key, "\n") != 1 {
		t.Errorf("key create = %d %q; want only the key", code, key)
	}
	if code, out, _ := servetest.Run(t, dsn, "key", "list", "--tenant", id); code != 0 || !strings.Contains(out, "read") || strings.Contains(out, strings.TrimSpace(key)) {
		t.Errorf("key list = %d %q; want the key listed without its secret", code, out)
	}
	if code, out, _ := servetest.Run(t, dsn, "tenant", "list"); code != 0 || !strings.Contains(out, "Scripted Sdn. Bhd.") {
		t.Errorf("tenant list = %d %q", code, out)
	}
	for _, args := range [][]string{
		{"tenant", "create", "--name", "No TIN"},
		{"tenant", "create", "--name", "Bad state", "--tin", "C1", "--state", "99"},
		{"key", "create"},
		{"key", "create", "--tenant", "01a20120-6682-7b03-af77-86f05b09f38d"},
		{"key", "revoke", "01a20120-6682-7b03-af77-86f05b09f38d"},
	} {
		if code, out, errOut := servetest.Run(t, dsn, args...); code == 0 || out != "" || errOut == "" {
			t.Errorf("%v = %d, stdout %q, stderr %q; want a failure explained on stderr", args, code, out, errOut)
		}
	}
	var out bytes.Buffer
	m := &cli.Main{Stdout: &out, Stderr: &out, Getenv: servetest.Env(nil)}
	if code := m.Run(t.Context(), []string{"version"}); code != 0 || !strings.HasPrefix(out.String(), "einvoice ") {
		t.Errorf("version = %d %q", code, out.String())
	}
	if code := m.Run(t.Context(), []string{"bogus"}); code != 2 {
		t.Errorf("unknown command exit = %d, want 2", code)
	}
	// PostgreSQL without a secret key is refused with the fix.
	out.Reset()
	if code := m.Run(t.Context(), []string{"migrate", "--db", "postgres://postgres@127.0.0.1:1/x"}); code != 1 || !strings.Contains(out.String(), "EINVOICE_SECRET_KEY is required") {
		t.Errorf("migrate on postgres without a key = %d %q", code, out.String())
	}
}

// TestVersion: `einvoice version` prints cli.Version, a release (vX.Y.Z)
// or the one after it in the making (vX.Y.Z+dev), and serve's startup line
// logs the same string.
func TestVersion(t *testing.T) {
	t.Parallel()
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+(\+dev)?$`).MatchString(cli.Version) {
		t.Errorf("cli.Version = %q; want vX.Y.Z or vX.Y.Z+dev", cli.Version)
	}
	if code, stdout, stderr := runCommand(t, []string{"version"}, false); code != 0 || stdout != "einvoice "+cli.Version+"\n" || stderr != "" {
		t.Errorf("version = %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, "einvoice "+cli.Version+"\n")
	}
	code, _, stderr := runCommand(t, []string{"serve", "--addr", "127.0.0.1:0", "--workers", "0", "--db", testdb.SQLite(t)}, true)
	if code != 0 || !regexp.MustCompile(`(?m)^.*msg=listening .*version=`+regexp.QuoteMeta(cli.Version)+`( |$)`).MatchString(stderr) {
		t.Errorf("serve = %d; want its listening line to log version=%s:\n%s", code, cli.Version, stderr)
	}
}

// TestVersionLdflags: a build that sets the version with -ldflags -X prints
// that version, so that a release build need not edit the source. It builds
// the binary (a few seconds; skipped with -short).
func TestVersionLdflags(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "einvoice")
	args := []string{"build", "-o", bin, "-ldflags", "-X github.com/einvoice/einvoice/internal/cli.Version=v9.8.7"}
	if raceEnabled() {
		args = append(args, "-race") // the race build's compiled packages are cached already
	}
	build := exec.Command("go", append(args, "./cmd/einvoice")...)
	build.Dir = filepath.Dir(strings.TrimSpace(string(out)))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	got, err := exec.Command(bin, "version").Output()
	if err != nil || string(got) != "einvoice v9.8.7\n" {
		t.Errorf("einvoice version = %q, %v; want %q", got, err, "einvoice v9.8.7\n")
	}
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// runCommand runs one command line in-process and returns its exit status
// and output; with listen, it stops the command (as SIGTERM does) once it
// listens.
func runCommand(t *testing.T, args []string, listen bool) (int, string, string) {
	t.Helper()
	stdout, stderr := &servetest.Buffer{}, &servetest.Buffer{}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := make(chan string, 1)
	m := &cli.Main{Stdout: stdout, Stderr: stderr, Ready: ready, Getenv: servetest.Env(map[string]string{"EINVOICE_SECRET_KEY": servetest.SecretKey})}
	done := make(chan int, 1)
	go func() { done <- m.Run(ctx, args) }()
	select {
	case code := <-done:
		if listen {
			t.Errorf("exited with %d before listening", code)
		}
		return code, stdout.String(), stderr.String()
	case <-ready:
		if !listen {
			t.Errorf("listens; want it to stop at once")
		}
		cancel()
		return <-done, stdout.String(), stderr.String()
	}
}

// mustCLI runs a command line that must succeed and returns its stdout.
func mustCLI(t *testing.T, dsn string, args ...string) string {
	t.Helper()
	code, stdout, stderr := servetest.Run(t, dsn, args...)
	if code != 0 {
		t.Fatalf("%v = %d: %s", args, code, stderr)
	}
	return stdout
}

// newKeyID creates a key of the tenant and returns its id.
func newKeyID(t *testing.T, dsn, tenantID string) string {
	t.Helper()
	store := servetest.Store(t, dsn)
	svc := invoicing.New(invoicing.Options{Store: store, Now: time.Now, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	k, _, err := svc.CreateAPIKey(t.Context(), tenantID, einvoice.PermRead)
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

// keyRevoked tells whether the tenant's key id is revoked.
func keyRevoked(t *testing.T, dsn, tenantID, id string) bool {
	t.Helper()
	keys, err := servetest.Store(t, dsn).ListAPIKeys(t.Context(), tenantID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.ID == id {
			return k.RevokedAt != nil
		}
	}
	t.Fatalf("no key %s", id)
	return false
}

package cli_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

// TestStartTogetherSQLite starts processes of the real binary at once on a
// new SQLite file, without EINVOICE_SECRET_KEY: two `serve`, four `tenant
// create` and two `migrate`, ten times. Every process succeeds (one in five
// `tenant create` failed with "table meta already exists" beside a starting
// serve), the schema is at its last version with each migration recorded
// once, the secret key file was made once and sealed every tenant's
// secrets, and the demo tenant exists once.
func TestStartTogetherSQLite(t *testing.T) {
	t.Parallel()
	const rounds, serves, creates, migrates = 10, 2, 4, 2
	bin := servetest.Build(t)
	migrations, err := filepath.Glob(filepath.Join("..", "sqlstore", "migrations", "sqlite", "*.sql"))
	if err != nil || len(migrations) == 0 {
		t.Fatalf("migrations of SQLite: %v %v", migrations, err)
	}
	for round := range rounds {
		dsn := filepath.Join(t.TempDir(), "einvoice.db")
		var rs []*servetest.Replica
		var cmds []*exec.Cmd
		for i := range serves + creates + migrates {
			switch {
			case i < serves:
				name := fmt.Sprintf("round %d, serve %d", round, i+1)
				rs = append(rs, servetest.StartReplica(t, bin, name, servetest.EnvWithoutSettings(), dsn, "--workers", "0", "--log-format", "json"))
			case i < serves+creates:
				cmds = append(cmds, startCommand(t, bin, "tenant", "create", "--name", fmt.Sprintf("Tenant %d", i), "--tin", "C1234567890", "--db", dsn))
			default:
				cmds = append(cmds, startCommand(t, bin, "migrate", "--db", dsn))
			}
		}
		for _, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("round %d: %s: %v\n%s", round, strings.Join(c.Args[1:], " "), err, c.Stderr)
			}
		}
		for _, r := range rs {
			r.WaitListening(t)
		}
		servetest.StopReplicas(t, rs) // checks that exactly one printed a demo key
		if t.Failed() {
			t.FailNow()
		}
		checkStartedTogether(t, dsn, len(migrations), highestVersion(t, migrations), creates)
	}
}

// startCommand starts the binary with args and the environment of the
// test without any EINVOICE_* setting, its output kept in Stderr; should it
// hang, it is killed after two minutes.
func startCommand(t *testing.T, bin string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c := exec.CommandContext(ctx, bin, args...)
	c.Env = servetest.EnvWithoutSettings()
	out := &servetest.Buffer{}
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	return c
}

// checkStartedTogether checks the database that processes started together
// on: every migration recorded once, one secret key file that opens every
// tenant's secrets, the demo tenant once beside the created tenants.
// highestVersion is the version of the last migration file (numbers
// may have gaps while parts of the work are merged).
func highestVersion(t *testing.T, files []string) int {
	t.Helper()
	high := 0
	for _, f := range files {
		n, err := strconv.Atoi(strings.SplitN(filepath.Base(f), "_", 2)[0])
		if err != nil {
			t.Fatalf("migration %s: %v", f, err)
		}
		high = max(high, n)
	}
	return high
}

func checkStartedTogether(t *testing.T, dsn string, migrations, highestFile, created int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dsn+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var versions, rows, highest int
	if err := db.QueryRow(`SELECT COUNT(DISTINCT version_id), COUNT(*), MAX(version_id) FROM goose_db_version WHERE version_id > 0`).
		Scan(&versions, &rows, &highest); err != nil {
		t.Fatalf("goose table: %v", err)
	}
	if versions != migrations || rows != migrations || highest != highestFile {
		t.Errorf("goose_db_version: %d versions in %d rows, highest %d; want %d, once each, highest %d", versions, rows, highest, migrations, highestFile)
	}
	if left, _ := filepath.Glob(dsn + ".secret?*"); len(left) > 0 {
		t.Errorf("files left beside the secret key file: %v", left)
	}
	key, err := os.ReadFile(dsn + ".secret")
	if err != nil {
		t.Fatal(err)
	}
	box, err := secretbox.New(mustParseKey(t, string(key)))
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlstore.Open(t.Context(), dsn, box)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tenants, err := store.ListTenants(t.Context()) // opens every tenant's sealed secrets
	if err != nil {
		t.Fatalf("tenants under the key file's key: %v", err)
	}
	demo := 0
	for _, tn := range tenants {
		if tn.Profile.Name == einvoice.DemoProfile().Name {
			demo++
		}
	}
	if demo != 1 || len(tenants) != created+1 {
		t.Errorf("%d tenants, %d of them the demo tenant; want the %d created and the demo tenant once", len(tenants), demo, created)
	}
}

// mustParseKey decodes a secret key file's content.
func mustParseKey(t *testing.T, s string) []byte {
	t.Helper()
	key, err := secretbox.ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

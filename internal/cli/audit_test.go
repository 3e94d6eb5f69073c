package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestAuditVerify: the administration commands record their changes (actor
// cli), einvoice audit verify passes on the chain they make, and names the
// first broken entry once one is altered, then once one is removed, with
// SQL behind the service's back; on both engines.
func TestAuditVerify(t *testing.T) {
	t.Parallel()
	for _, e := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return migrated.SQLite(t) }},
		{"postgres", func(t *testing.T) string { return migrated.Postgres(t, os.Getenv) }},
	} {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			dsn := e.dsn(t)
			tenantID := strings.TrimSpace(mustCLI(t, dsn, "tenant", "create", "--name", "Audited Sdn. Bhd.", "--tin", "C1234567890"))
			mustCLI(t, dsn, "key", "create", "--tenant", tenantID, "--name", "ci")
			keyID := newKeyID(t, dsn, tenantID)
			mustCLI(t, dsn, "key", "revoke", keyID)
			mustCLI(t, dsn, "user", "add", "--tenant", tenantID, "--email", "ana@example.com", "--role", "admin")
			if out := mustCLI(t, dsn, "audit", "verify"); !strings.HasPrefix(out, "audit log intact: 4 entries, head ") {
				t.Fatalf("verify: %q", out)
			}
			store := servetest.Store(t, dsn)
			page, err := store.ListAudit(t.Context(), tenantID, einvoice.AuditFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 10}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range page.Items {
				if a.ActorKind != einvoice.ActorCLI || a.ActorName == "" {
					t.Errorf("entry %d: actor %s %q, want cli and the OS user", a.Seq, a.ActorKind, a.ActorName)
				}
				got = append(got, a.Action+" "+a.ResourceType)
			}
			if want := "user add user,key revoke key,key create key,tenant create tenant"; strings.Join(got, ",") != want {
				t.Errorf("entries %q, want %q", strings.Join(got, ","), want)
			}

			db := store.DB()
			if _, err := db.ExecContext(t.Context(), `UPDATE audit_log SET actor_name = 'mallory' WHERE seq = 2`); err != nil {
				t.Fatal(err)
			}
			wantBroken(t, dsn, "audit log broken at entry 2: its fields do not match its hash (altered)")
			if _, err := db.ExecContext(t.Context(), `UPDATE audit_log SET actor_name = $1 WHERE seq = 2`, page.Items[1].ActorName); err != nil {
				t.Fatal(err)
			}
			mustCLI(t, dsn, "audit", "verify")
			if _, err := db.ExecContext(t.Context(), `DELETE FROM audit_log WHERE seq = 2`); err != nil {
				t.Fatal(err)
			}
			wantBroken(t, dsn, "audit log broken at entry 2: entry 2 is missing (removed)")
		})
	}
}

// wantBroken runs einvoice audit verify and wants exit status 1 with the
// problem on stderr.
func wantBroken(t *testing.T, dsn, problem string) {
	t.Helper()
	code, _, stderr := servetest.Run(t, dsn, "audit", "verify")
	if code != 1 || !strings.Contains(stderr, problem) {
		t.Errorf("audit verify = %d, stderr %q; want 1 and %q", code, stderr, problem)
	}
}

package people_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/people"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb"
)

// BenchmarkSignInRefused: a wrong password of a known e-mail and any
// password of an unknown e-mail cost the same (DECISIONS 20: the same
// answer and the same time), with the default argon2id parameters on a
// real SQLite file. Compare the two sub-benchmarks' ns/op:
//
//	go test -run '^$' -bench SignInRefused -count 5 ./internal/invoicing/people/
func BenchmarkSignInRefused(b *testing.B) {
	ctx := context.Background()
	box, err := secretbox.New(bytes.Repeat([]byte{9}, secretbox.KeySize))
	if err != nil {
		b.Fatal(err)
	}
	st, err := sqlstore.Open(ctx, testdb.SQLite(b), box)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx, nil); err != nil {
		b.Fatal(err)
	}
	svc := people.New(people.Options{Store: st, Argon2: people.DefaultArgon2, NewID: func() string { return uuid.Must(uuid.NewV7()).String() }})
	now := time.Now().UTC()
	tn := &einvoice.Tenant{ID: uuid.Must(uuid.NewV7()).String(), Profile: einvoice.DemoProfile(), CreatedAt: now, UpdatedAt: now}
	if err := st.CreateTenant(ctx, tn); err != nil {
		b.Fatal(err)
	}
	_, link, err := svc.AddUser(ctx, tn.ID, "known@example.com", "Known", einvoice.RoleViewer)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.UseLink(ctx, link[strings.LastIndex(link, "/")+1:], "", password, "198.51.100.1"); err != nil {
		b.Fatal(err)
	}
	n := 0
	refuse := func(b *testing.B, email func() string) {
		for b.Loop() {
			n++
			_, err := svc.SignIn(ctx, email(), "not the password at all", fmt.Sprintf("198.51.%d.%d", n/250, n%250+2))
			if einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
				b.Fatalf("SignIn = %v, want UNAUTHORIZED", err)
			}
			b.StopTimer()
			if err := st.ClearSignInFailures(ctx, "known@example.com"); err != nil { // no lockout
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	b.Run("wrong-password", func(b *testing.B) { refuse(b, func() string { return "known@example.com" }) })
	b.Run("unknown-email", func(b *testing.B) { refuse(b, func() string { return fmt.Sprintf("nobody%d@example.com", n) }) })
}

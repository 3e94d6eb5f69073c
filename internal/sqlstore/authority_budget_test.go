package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/einvoice/budgettest"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// testAuthorityBudget runs the budget suite on two stores opened on one
// database, as two replicas are.
func testAuthorityBudget(t *testing.T, dsn string) {
	s1, s2 := open(t, dsn), open(t, dsn)
	budgettest.Run(t, func(t *testing.T) (a, b einvoice.AuthorityBudget) {
		return authorityBudget(t, s1), authorityBudget(t, s2)
	})
}

func authorityBudget(t testing.TB, s *sqlstore.Store) *sqlstore.AuthorityBudget {
	t.Helper()
	b, err := sqlstore.NewAuthorityBudget(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkAuthorityBudget measures reservations on one key with a full
// ring (limit 300, the largest of the authority's), from 8 goroutines on
// one store (one process), or on two stores of one database (two replicas):
//
//	EINVOICE_TEST_POSTGRES_URL=... go test ./internal/sqlstore -run '^$' -bench AuthorityBudget
func BenchmarkAuthorityBudget(b *testing.B) {
	dsns := map[string]func() string{
		"sqlite":   func() string { return migrated.SQLite(b) },
		"postgres": func() string { return migrated.Postgres(b, os.Getenv) },
	}
	for _, name := range []string{"sqlite", "postgres"} {
		for _, stores := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/stores=%d", name, stores), func(b *testing.B) {
				dsn := dsns[name]()
				var budgets []*sqlstore.AuthorityBudget
				for range stores {
					budgets = append(budgets, authorityBudget(b, open(b, dsn)))
				}
				ctx := context.Background()
				now := time.Now()
				var n atomic.Int64
				b.SetParallelism(4)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					budget := budgets[int(n.Add(1))%stores]
					for pb.Next() {
						// Every slot is taken, however far away: the ring stays full.
						if _, ok, err := budget.Reserve(ctx, "get_submission bench", 300, time.Minute, now, now.AddDate(10, 0, 0)); err != nil || !ok {
							b.Errorf("Reserve: %v, %v", ok, err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reservations/s")
			})
		}
	}
}

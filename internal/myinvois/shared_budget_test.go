package myinvois_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// callLog records the answers to search calls (Options.OnCall) and the
// waits of the budget (Options.OnBudget).
type callLog struct {
	mu       sync.Mutex
	statuses map[int]int
	waits    int
}

func (l *callLog) call(endpoint string, status int, _ time.Duration) {
	if endpoint != myinvois.EndpointSearch {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.statuses == nil {
		l.statuses = map[int]int{}
	}
	l.statuses[status]++
}

func (l *callLog) budget(_ string, _ time.Duration, waited bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if waited {
		l.waits++
	}
}

// TestSharedBudgetAgainstSandbox: two replicas of one client, each its own
// myinvois.Client on its own store of one database, search more often
// together than the sandbox's limit (12 a window) allows. Sharing the
// database's budget, the sandbox answers no 429; each with a budget in its
// own memory, they meet 429s (the control that shows the test can fail).
// Windows are shortened (the sandbox's 2s, the budget's 3s: the minute and
// the 61s of production, scaled) so that the test takes seconds.
func TestSharedBudgetAgainstSandbox(t *testing.T) {
	const perReplica = 8 // 16 in all, over the limit of 12
	engines(t, func(t *testing.T, dsn string) {
		env := startSandbox(t, dsn, sandbox.Options{RateLimits: true, RateWindow: 2 * time.Second})
		replica := func(log *callLog, budget einvoice.AuthorityBudget) *myinvois.Client {
			o := myinvois.Options{Budgets: true, Budget: budget, Logger: quietLogger(t), OnCall: log.call, OnBudget: log.budget}
			myinvois.SetBudgetWindow(&o, 3*time.Second)
			return myinvois.New(o)
		}
		// searchAll has every replica search perReplica times, all at
		// once, and returns the errors.
		searchAll := func(cred einvoice.Credentials, replicas ...*myinvois.Client) []error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var (
				mu   sync.Mutex
				errs []error
				wg   sync.WaitGroup
			)
			for _, c := range replicas {
				for range perReplica {
					wg.Go(func() {
						if _, err := c.FindDocuments(ctx, cred, []einvoice.SoughtDocument{{CodeNumber: "INV-NONE", Since: time.Now().Add(-time.Hour)}}); err != nil {
							mu.Lock()
							errs = append(errs, err)
							mu.Unlock()
						}
					})
				}
			}
			wg.Wait()
			return errs
		}

		var shared callLog
		a, b := replica(&shared, budgetOf(t, openStore(t, dsn))), replica(&shared, budgetOf(t, openStore(t, dsn)))
		if errs := searchAll(env.cred, a, b); len(errs) > 0 {
			t.Errorf("searches with a shared budget failed: %v", errors.Join(errs...))
		}
		if shared.statuses[200] != 2*perReplica || len(shared.statuses) != 1 {
			t.Errorf("search answers with a shared budget: %v, want %d of 200 and no 429", shared.statuses, 2*perReplica)
		}
		if shared.waits < 2*perReplica-12 {
			t.Errorf("%d calls waited for the budget, want at least %d", shared.waits, 2*perReplica-12)
		}

		var apart callLog
		control := env.cred
		control.ClientID, control.ClientSecret = "erp-control", "erp-control-secret"
		_ = searchAll(control, replica(&apart, nil), replica(&apart, nil))
		if apart.statuses[429] == 0 {
			t.Errorf("search answers with a budget per replica: %v, want some 429 (the test cannot fail otherwise)", apart.statuses)
		}
	})
}

func budgetOf(t *testing.T, st *sqlstore.Store) *sqlstore.AuthorityBudget {
	t.Helper()
	b, err := sqlstore.NewAuthorityBudget(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBudgetStorageFailure: when the database's budget cannot be read, the
// call is not sent, and its error says so.
func TestBudgetStorageFailure(t *testing.T) {
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	st := openStore(t, migrated.SQLite(t))
	budget := budgetOf(t, st)
	st.Close()
	var exchanges atomic.Int32
	c := myinvois.New(myinvois.Options{Budgets: true, Budget: budget, Logger: quietLogger(t),
		OnCall: func(string, int, time.Duration) { exchanges.Add(1) }})
	_, err := c.FindDocuments(context.Background(), env.cred, []einvoice.SoughtDocument{{CodeNumber: "INV-1", Since: time.Now().Add(-time.Hour)}})
	ce, ok := einvoice.AsCallError(err)
	if !ok || !ce.NotSent || ce.Status != 0 || ce.Unanswered() || !errors.Is(err, myinvois.ErrNotSent) {
		t.Errorf("with the budget's database closed: %v, want a CallError, not sent", err)
	}
	if n := exchanges.Load(); n != 0 {
		t.Errorf("%d exchanges with the authority, want none", n)
	}
}

package myinvois

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/einvoice/budgettest"
)

func TestMemoryBudget(t *testing.T) {
	budgettest.Run(t, func(t *testing.T) (a, b einvoice.AuthorityBudget) {
		m := newMemoryBudget()
		return m, m
	})
}

// budgetLog records what the budgets held back (Options.OnBudget).
type budgetLog struct {
	mu      sync.Mutex
	waited  []time.Duration
	refused []time.Duration
}

func (l *budgetLog) report(_ string, d time.Duration, waited bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if waited {
		l.waited = append(l.waited, d)
	} else {
		l.refused = append(l.refused, d)
	}
}

func (l *budgetLog) get() (waited, refused []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Sorted(slices.Values(l.waited)), slices.Clone(l.refused)
}

// tinyBudgets: 2 details calls per 400ms window, on a clock stopped at its
// first reading, so that the waits the budget computes are exact (and are
// waited for in real time).
func tinyBudgets(t *testing.T, log *budgetLog) Options {
	stopped := time.Now()
	return Options{Budgets: true, Logger: testLogger(t), Now: func() time.Time { return stopped },
		OnBudget: log.report, budgetWindow: 400 * time.Millisecond, budgetLimits: map[string]int{EndpointDocumentDetails: 2}}
}

func detailsServer(t *testing.T) (*fakeAuthority, *atomic.Int32) {
	f := newFake(t)
	var calls atomic.Int32
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, 200, map[string]any{"uuid": "X", "status": "Valid"})
	})
	return f, &calls
}

func TestBudgetsKeepUnderTheLimit(t *testing.T) {
	f, calls := detailsServer(t)
	var log budgetLog
	c := New(tinyBudgets(t, &log))
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// 5 calls at 2 per 400ms: the 3rd and 4th wait a window, the 5th two.
	waited, refused := log.get()
	if want := []time.Duration{400 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}; !slices.Equal(waited, want) || len(refused) != 0 {
		t.Errorf("waits %v, refusals %v; want waits %v", waited, refused, want)
	}
	if calls.Load() != 5 {
		t.Errorf("%d calls reached the server, want 5", calls.Load())
	}

	// Each client has its own budget; a slot further than the longest wait
	// is refused at once, without a deadline.
	now := time.Now()
	b := newBudgets(Options{Budgets: true, budgetWindow: time.Hour, budgetLimits: map[string]int{EndpointDocumentDetails: 2}},
		func() time.Time { return now }, testLogger(t))
	one, two := f.creds(), f.creds()
	two.ClientID = "client-2"
	for range 2 {
		if err := b.wait(ctx, one, EndpointDocumentDetails, "op"); err != nil {
			t.Fatal(err)
		}
	}
	err := b.wait(ctx, one, EndpointDocumentDetails, "op")
	if ce := callErr(t, err); !errors.Is(err, ErrThrottled) || ce.Status != 429 || !ce.NotSent || ce.RetryAfter != time.Hour {
		t.Errorf("the spent client: %+v, want ErrThrottled with RetryAfter 1h", ce)
	}
	if err := b.wait(ctx, two, EndpointDocumentDetails, "op"); err != nil {
		t.Errorf("another client: %v", err)
	}
	if err := b.wait(ctx, one, EndpointSubmit, "op"); err != nil {
		t.Errorf("another endpoint: %v", err)
	}
}

func TestBudgetBeyondTheLongestWaitIsNotSent(t *testing.T) {
	f, calls := detailsServer(t)
	var log budgetLog
	o := tinyBudgets(t, &log)
	o.budgetWindow = 5 * time.Second
	o.MaxBudgetWait = 2 * time.Second
	c := New(o)
	ctx := context.Background()
	for range 2 {
		if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
			t.Fatal(err)
		}
	}
	// The next slot is 5s away, beyond the longest wait: refused unsent.
	_, err := c.GetDocumentDetails(ctx, f.creds(), "X")
	if ce := callErr(t, err); ce.Status != 429 || !ce.NotSent || !errors.Is(err, ErrThrottled) || ce.RetryAfter != 5*time.Second {
		t.Errorf("beyond the longest wait: %+v", ce)
	}
	// Within the longest wait but beyond the context's deadline: refused.
	o.MaxBudgetWait = time.Minute
	c = New(o)
	for range 2 {
		if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = c.GetDocumentDetails(short, f.creds(), "X")
	if ce := callErr(t, err); ce.Status != 429 || !errors.Is(err, ErrThrottled) || ce.RetryAfter != 5*time.Second {
		t.Errorf("beyond the deadline: %+v", ce)
	}
	if waited, refused := log.get(); len(waited) != 0 || !slices.Equal(refused, []time.Duration{5 * time.Second, 5 * time.Second}) {
		t.Errorf("waits %v, refusals %v; want two refusals of 5s", waited, refused)
	}
	if calls.Load() != 4 {
		t.Errorf("%d calls reached the authority, want 4", calls.Load())
	}

	// A cancelled wait says nothing was sent.
	cctx, ccancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, ccancel)
	_, err = c.GetDocumentDetails(cctx, f.creds(), "X")
	if ce := callErr(t, err); !errors.Is(err, ErrNotSent) || !errors.Is(err, context.Canceled) || ce.Status != 0 || !ce.NotSent {
		t.Errorf("cancelled wait: %+v", ce)
	}
	if calls.Load() != 4 {
		t.Errorf("%d calls reached the authority, want 4", calls.Load())
	}
}

func TestBudgetHonoursRetryAfter(t *testing.T) {
	f := newFake(t)
	var calls atomic.Int32
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "TooManyRequests"}})
			return
		}
		writeJSON(w, 200, map[string]any{"uuid": "X", "status": "Valid"})
	})
	var log budgetLog
	o := tinyBudgets(t, &log)
	o.budgetLimits = map[string]int{EndpointDocumentDetails: 100}
	c := New(o)
	ctx := context.Background()
	_, err := c.GetDocumentDetails(ctx, f.creds(), "X")
	if ce := callErr(t, err); ce.Status != 429 || ce.RetryAfter != time.Second || ce.NotSent {
		t.Fatalf("first call: %+v", ce)
	}
	// Within the Retry-After, a call with a short deadline is refused unsent.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := c.GetDocumentDetails(short, f.creds(), "X"); !errors.Is(err, ErrThrottled) {
		t.Errorf("within Retry-After: %v", err)
	}
	// Other clients are not held back.
	other := f.creds()
	other.ClientID = "client-2"
	if _, err := c.GetDocumentDetails(ctx, other, "X"); err != nil {
		t.Errorf("another client: %v", err)
	}
	// A patient call waits until the Retry-After has passed.
	if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
		t.Fatal(err)
	}
	if waited, refused := log.get(); !slices.Equal(waited, []time.Duration{time.Second}) || !slices.Equal(refused, []time.Duration{time.Second}) {
		t.Errorf("waits %v, refusals %v; want one of each, of 1s", waited, refused)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls reached the authority, want 3", calls.Load())
	}
}

func TestBudgetsOffByDefault(t *testing.T) {
	b := newBudgets(Options{}, time.Now, testLogger(t))
	cred := einvoice.Credentials{BaseURL: "http://x", ClientID: "a"}
	b.block(context.Background(), cred, EndpointSearch, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	for range 100 {
		if err := b.wait(ctx, cred, EndpointSearch, "op"); err != nil {
			t.Fatal(err)
		}
	}
	if RequestsPerMinute(EndpointSearch) != 12 || RequestsPerMinute(EndpointGetSubmission) != 300 || RequestsPerMinute("nope") != 0 {
		t.Error("RequestsPerMinute")
	}
}

// TestBudgetEndedContext: a call whose context has ended is not sent, and
// says why (not a throttle).
func TestBudgetEndedContext(t *testing.T) {
	b := newBudgets(Options{Budgets: true}, time.Now, testLogger(t))
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	err := b.wait(ctx, einvoice.Credentials{BaseURL: "http://x", ClientID: "a"}, EndpointSearch, "op")
	if ce := callErr(t, err); !ce.NotSent || ce.Status != 0 || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrThrottled) {
		t.Errorf("ended context: %+v, want not sent with the context's error", ce)
	}
}

// TestBudgetWaitOfTheContext: a caller that would lose its progress by
// giving up (a settle sweep reading many pages) sets a longer wait on its
// context, and its call waits for the slot beyond the client's own bound
// instead of being refused unsent.
func TestBudgetWaitOfTheContext(t *testing.T) {
	f, calls := detailsServer(t)
	var log budgetLog
	o := tinyBudgets(t, &log)
	o.MaxBudgetWait = 100 * time.Millisecond
	c := New(o)
	ctx := context.Background()
	for range 2 {
		if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); !errors.Is(err, ErrThrottled) {
		t.Fatalf("beyond the client's bound: %v, want refused unsent", err)
	}
	patient := einvoice.WithBudgetWait(ctx, time.Minute)
	if _, err := c.GetDocumentDetails(patient, f.creds(), "X"); err != nil {
		t.Fatalf("with a minute's wait on the context: %v", err)
	}
	if waited, refused := log.get(); !slices.Equal(waited, []time.Duration{400 * time.Millisecond}) || len(refused) != 1 {
		t.Errorf("waits %v, refusals %v; want one wait of the window and one refusal", waited, refused)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls reached the authority, want 3", calls.Load())
	}
}

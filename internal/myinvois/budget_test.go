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
)

// tinyBudgets: 2 details calls per 400ms window.
func tinyBudgets(t *testing.T) Options {
	return Options{Budgets: true, Logger: testLogger(t), budgetWindow: 400 * time.Millisecond,
		budgetLimits: map[string]int{EndpointDocumentDetails: 2}}
}

func TestBudgetsKeepUnderTheLimit(t *testing.T) {
	f := newFake(t)
	var calls atomic.Int32
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, 200, map[string]any{"uuid": "X", "status": "Valid"})
	})
	c := New(tinyBudgets(t))
	ctx := context.Background()
	start := time.Now()
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
	if d := time.Since(start); d < 800*time.Millisecond || d > 5*time.Second || calls.Load() != 5 {
		t.Errorf("5 calls took %v (%d reached the server), want about 800ms", d, calls.Load())
	}
	// Each client has its own budget.
	b := newBudgets(true, time.Hour, map[string]int{EndpointDocumentDetails: 2})
	one, two := f.creds(), f.creds()
	two.ClientID = "client-2"
	soon, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	for range 2 {
		if err := b.wait(soon, one, EndpointDocumentDetails, "op"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.wait(soon, one, EndpointDocumentDetails, "op"); !errors.Is(err, ErrThrottled) {
		t.Errorf("the spent client: %v, want ErrThrottled", err)
	}
	if err := b.wait(soon, two, EndpointDocumentDetails, "op"); err != nil {
		t.Errorf("another client: %v", err)
	}
	if err := b.wait(soon, one, EndpointSubmit, "op"); err != nil {
		t.Errorf("another endpoint: %v", err)
	}
}

// TestBudgetSlots pins the slots handed out: no window holds more than the
// limit, first come first served, a block (429) pushes every later slot.
func TestBudgetSlots(t *testing.T) {
	const window = time.Minute
	b := newBudgets(true, window, map[string]int{EndpointCancel: 3})
	key := keyOf(einvoice.Credentials{BaseURL: "http://x", ClientID: "a"}, EndpointCancel)
	ctx := context.Background()
	t0 := time.Now()
	at := func(now time.Duration) time.Duration {
		slot, ok := b.reserve(key, t0.Add(now), ctx)
		if !ok {
			t.Fatal("refused without a deadline")
		}
		return slot.Sub(t0)
	}
	var got []time.Duration
	for _, now := range []time.Duration{0, 0, 0, 0, 10 * time.Second, 0, 0} {
		got = append(got, at(now))
	}
	want := []time.Duration{0, 0, 0, window, window, window, 2 * window}
	if !slices.Equal(got, want) {
		t.Errorf("slots %v, want %v", got, want)
	}
	// Much later, the budget is whole again.
	if s := at(10 * window); s != 10*window {
		t.Errorf("later: slot %v", s)
	}
	// A block pushes the next slots past it.
	b.mu.Lock()
	b.state[key].blocked = t0.Add(11 * window)
	b.mu.Unlock()
	if s := at(10*window + time.Second); s != 11*window {
		t.Errorf("blocked: slot %v, want %v", s, 11*window)
	}
	// Beyond a deadline: refused, nothing taken.
	short, cancel := context.WithDeadline(ctx, t0.Add(11*window+time.Second))
	defer cancel()
	for range 2 { // the 2nd and 3rd of this window
		if s := at(11 * window); s != 11*window {
			t.Errorf("slot %v, want %v", s, 11*window)
		}
	}
	if _, ok := b.reserve(key, t0.Add(11*window), short); ok {
		t.Error("a 4th slot in the window was given within the deadline")
	}
	if s := at(11 * window); s != 12*window {
		t.Errorf("after a refusal: slot %v, want %v", s, 12*window)
	}
}

func TestBudgetBeyondDeadlineIsNotSent(t *testing.T) {
	f := newFake(t)
	var calls atomic.Int32
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, 200, map[string]any{"uuid": "X", "status": "Valid"})
	})
	o := tinyBudgets(t)
	o.budgetWindow = 5 * time.Second
	c := New(o)
	ctx := context.Background()
	for range 2 {
		if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.GetDocumentDetails(short, f.creds(), "X")
	ce := callErr(t, err)
	if ce.Status != 429 || !errors.Is(err, ErrThrottled) || ce.RetryAfter <= 0 || ce.RetryAfter > 5*time.Second {
		t.Errorf("CallError = %+v", ce)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refused after %v, want at once", d)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls reached the authority, want 2", calls.Load())
	}

	// A cancelled wait gives its slot back and says nothing was sent.
	cctx, ccancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, ccancel)
	_, err = c.GetDocumentDetails(cctx, f.creds(), "X")
	if ce := callErr(t, err); !errors.Is(err, ErrNotSent) || !errors.Is(err, context.Canceled) || ce.Status != 0 {
		t.Errorf("cancelled wait: %+v", ce)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls reached the authority, want 2", calls.Load())
	}
}

func TestBudgetHonoursRetryAfter(t *testing.T) {
	f := newFake(t)
	var (
		calls atomic.Int32
		mu    sync.Mutex
		times []time.Time
	)
	f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "TooManyRequests"}})
			return
		}
		writeJSON(w, 200, map[string]any{"uuid": "X", "status": "Valid"})
	})
	o := tinyBudgets(t)
	o.budgetLimits = map[string]int{EndpointDocumentDetails: 100}
	c := New(o)
	ctx := context.Background()
	_, err := c.GetDocumentDetails(ctx, f.creds(), "X")
	if ce := callErr(t, err); ce.Status != 429 || ce.RetryAfter != time.Second {
		t.Fatalf("first call: %+v", ce)
	}
	// Within the Retry-After, a call with a short deadline is refused unsent.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := c.GetDocumentDetails(short, f.creds(), "X"); !errors.Is(err, ErrThrottled) {
		t.Errorf("within Retry-After: %v", err)
	}
	// Other endpoints and other clients are not held back.
	other := f.creds()
	other.ClientID = "client-2"
	quick, cancel2 := context.WithTimeout(ctx, 3*time.Second)
	defer cancel2()
	if _, err := c.GetDocumentDetails(quick, other, "X"); err != nil {
		t.Errorf("another client: %v", err)
	}
	// A patient call waits until the Retry-After has passed.
	if _, err := c.GetDocumentDetails(ctx, f.creds(), "X"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if gap := times[len(times)-1].Sub(times[0]); gap < 950*time.Millisecond {
		t.Errorf("sent again %v after a Retry-After of 1s", gap)
	}
}

func TestBudgetsOffByDefault(t *testing.T) {
	b := newBudgets(false, 0, nil)
	cred := einvoice.Credentials{BaseURL: "http://x", ClientID: "a"}
	b.block(cred, EndpointSearch, time.Hour)
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

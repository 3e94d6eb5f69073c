package myinvois

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The endpoints, as named in budgets, logs and Options.OnCall.
const (
	EndpointLogin           = "login"
	EndpointSubmit          = "submit"
	EndpointGetSubmission   = "get_submission"
	EndpointDocumentDetails = "document_details"
	EndpointSearch          = "search_documents"
	EndpointCancel          = "cancel_document"
	EndpointValidateTIN     = "validate_tin"
	EndpointSearchTIN       = "search_tin"
	EndpointRawDocument     = "document_raw"
	EndpointNotifications   = "notifications"
)

// RequestsPerMinute is the authority's published limit of requests per
// minute per client ID for an endpoint (0 for an unknown endpoint), kept
// with Options.Budgets.
func RequestsPerMinute(endpoint string) int { return defaultRPM[endpoint] }

var defaultRPM = map[string]int{
	EndpointLogin:           12,
	EndpointSubmit:          100,
	EndpointGetSubmission:   300,
	EndpointDocumentDetails: 125,
	EndpointCancel:          12,
	EndpointValidateTIN:     60,
	EndpointSearchTIN:       60,
	EndpointSearch:          12,
	EndpointRawDocument:     60,
}

// budgetWindow is the sliding window of the budgets: a minute, plus a second
// for the jitter between our clocks (the replicas') and the authority's.
const budgetWindow = 61 * time.Second

// DefaultMaxBudgetWait is how long a call waits at most for its budget's
// slot unless Options.MaxBudgetWait says otherwise.
const DefaultMaxBudgetWait = 5 * time.Second

// budgets keeps each (client, endpoint) under its requests per window in an
// einvoice.AuthorityBudget: no window of that length holds more sends than
// the limit, and slots are handed out in order of arrival (reserved, then
// waited for). A slot further away than the longest wait is not taken.
type budgets struct {
	enabled bool
	window  time.Duration
	limits  map[string]int
	store   einvoice.AuthorityBudget
	maxWait time.Duration
	now     func() time.Time
	log     *slog.Logger
	report  func(endpoint string, wait time.Duration, waited bool)
}

func newBudgets(o Options, now func() time.Time, log *slog.Logger) *budgets {
	b := &budgets{enabled: o.Budgets, window: o.budgetWindow, store: o.Budget, maxWait: o.MaxBudgetWait,
		now: now, log: log, report: o.OnBudget}
	if b.window <= 0 {
		b.window = budgetWindow
	}
	if b.store == nil {
		b.store = newMemoryBudget()
	}
	if b.maxWait <= 0 {
		b.maxWait = DefaultMaxBudgetWait
	}
	if b.report == nil {
		b.report = func(string, time.Duration, bool) {}
	}
	b.limits = make(map[string]int, len(defaultRPM))
	for ep, n := range defaultRPM {
		b.limits[ep] = n
	}
	for ep, n := range o.budgetLimits {
		b.limits[ep] = n
	}
	return b
}

// keyOf names a budget: the endpoint of one client of one authority.
func keyOf(c einvoice.Credentials, endpoint string) string {
	return fmt.Sprintf("%s %q %q", endpoint, c.BaseURL, c.ClientID)
}

// wait takes the next slot of the endpoint for this client and sleeps until
// it comes. When the slot lies further than the longest wait (maxWait, or
// the context's einvoice.WithBudgetWait), or beyond
// ctx's deadline, it takes nothing and returns a CallError (Status 429,
// NotSent, ErrThrottled, RetryAfter the time to the slot), so that the
// caller does other work meanwhile. When ctx ends while waiting, or the
// budget cannot be read, it returns a CallError (Status 0, NotSent)
// wrapping ErrNotSent; a slot abandoned so stays taken (one send fewer in
// its window).
func (b *budgets) wait(ctx context.Context, c einvoice.Credentials, endpoint, op string) error {
	limit := b.limits[endpoint]
	if !b.enabled || limit <= 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return &einvoice.CallError{Op: op, NotSent: true, Err: fmt.Errorf("%w: before the rate budget: %w", ErrNotSent, err)}
	}
	now := b.now()
	longest := b.maxWait
	if d, ok := einvoice.BudgetWait(ctx); ok {
		longest = d
	}
	if deadline, ok := ctx.Deadline(); ok {
		// The deadline is on the real clock, now on the client's.
		longest = min(longest, time.Until(deadline))
	}
	sendAt, ok, err := b.store.Reserve(ctx, keyOf(c, endpoint), limit, b.window, now, now.Add(longest))
	if err != nil {
		return &einvoice.CallError{Op: op, NotSent: true, Err: fmt.Errorf("%w: reading the rate budget: %w", ErrNotSent, err)}
	}
	d := sendAt.Sub(now)
	if !ok {
		b.report(endpoint, d, false)
		return &einvoice.CallError{Op: op, Status: 429, RetryAfter: d, NotSent: true, Err: ErrThrottled}
	}
	if d <= 0 {
		return nil
	}
	b.report(endpoint, d, true)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return &einvoice.CallError{Op: op, NotSent: true, Err: fmt.Errorf("%w: waiting for the rate budget: %w", ErrNotSent, ctx.Err())}
	}
}

// block holds the endpoint back for this client for d (after a 429). Without
// an announced wait, it holds it for one slot of its budget. A failure to
// record it is logged: the authority will answer 429 again if need be.
func (b *budgets) block(ctx context.Context, c einvoice.Credentials, endpoint string, d time.Duration) {
	if !b.enabled {
		return
	}
	if limit := b.limits[endpoint]; d <= 0 && limit > 0 {
		d = b.window / time.Duration(limit)
	}
	if d <= 0 {
		return
	}
	if err := b.store.Block(context.WithoutCancel(ctx), keyOf(c, endpoint), b.now().Add(d)); err != nil {
		b.log.LogAttrs(ctx, slog.LevelWarn, "myinvois: could not record a 429 in the rate budget",
			slog.String("endpoint", endpoint), slog.String("error", err.Error()))
	}
}

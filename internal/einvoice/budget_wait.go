package einvoice

import (
	"context"
	"time"
)

type budgetWaitKey struct{}

// WithBudgetWait returns a context under which a call to the authority may
// wait up to d for its slot of the per-endpoint rate budget, instead of the
// client's own short bound (after which a call is not sent and says when to
// come back). It is for work that has nothing else to do meanwhile and would
// lose its progress by giving up, such as a settle sweep that must read
// every page of a search at 12 calls a minute.
func WithBudgetWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, budgetWaitKey{}, d)
}

// BudgetWait returns the wait set by WithBudgetWait, if any.
func BudgetWait(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(budgetWaitKey{}).(time.Duration)
	return d, ok
}

package myinvois

import "time"

// SetBudgetWindow shortens the budgets' window, for tests of other
// packages' that cannot wait minutes.
func SetBudgetWindow(o *Options, d time.Duration) { o.budgetWindow = d }

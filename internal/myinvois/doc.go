// Package myinvois is the HTTP client of the MyInvois protocol (Malaysia's
// tax authority, LHDN): token login, submit documents, get submission,
// document details, search, cancel and TIN validation. *Client implements
// einvoice.AuthorityAPI against MyInvois itself or the built-in sandbox.
//
// Every failed call returns an *einvoice.CallError (Status 0 when no answer
// came or the answer could not be read), except the refusals made before
// anything is sent: invalid credentials (ErrCredentials) and submissions over
// the authority's limits (ErrTooLarge), which are plain wrapped errors.
//
// Tokens are cached per (BaseURL, ClientID, OnBehalfOf, secret), shared by
// concurrent callers (one login at a time per key) and refreshed when less
// than five minutes remain; an API call answered 401 drops its token and is
// tried once more with a new one. With Options.Budgets the client keeps under
// the authority's per-client, per-endpoint requests per minute and, after a
// 429, holds that endpoint back until the answer's Retry-After has passed.
// The budgets are an einvoice.AuthorityBudget: in the client's memory, or
// in a database that every replica shares (Options.Budget). A call waits
// for its slot at most Options.MaxBudgetWait; a slot further away is not
// taken, and the call fails unsent with ErrThrottled and the time to the
// slot as RetryAfter, for the caller to do other work meanwhile.
package myinvois

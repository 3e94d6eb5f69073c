// Package access is the application's access capability: who may call and
// how often a call counts. It holds the tenants' creation (and the first
// start's bootstrap of a demo tenant), their API keys and their
// authentication (with a short in-memory cache), the web dashboard's
// sessions (DECISIONS 18) and the requests' idempotency keys (DECISIONS
// 15). Its purges (ended sessions, expired idempotency keys) are run by the
// application's housekeeping loop. It imports only the domain (package
// einvoice).
package access

// Package access is the application's access capability for programs: who
// may call and how often a call counts. It holds the tenants' creation,
// their API keys and their authentication (with a short in-memory cache,
// and each key's last use), and the requests' idempotency keys (DECISIONS
// 15). People and their sessions are package people's. It imports only the
// domain (package einvoice).
package access

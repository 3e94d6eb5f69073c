// Package web is the HTTP foundation every web surface of the service
// shares (DECISIONS 19): the JSON API under /api/v1, the dashboard under
// /app, the buyer's request page under /r/, and the operations endpoints
// are siblings mounted on one Root, which does what every request needs
// once (request id, header-size limit, panic recovery, access log,
// metrics labelled by the matched route pattern).
//
// It holds what the surfaces would otherwise each write again: the one
// table from error code to HTTP status (Status), the JSON error body, the
// request id, CSRF tokens bound to a session or a page's subject (CSRF),
// the same-origin rule of form posts (SameOrigin), security headers with a
// per-answer Content-Security-Policy, HTML rendering with its plain
// fallback, and random secrets. It imports the domain (for its error
// codes) and nothing else of ours.
package web

// Package receipts tests receipts end to end: recording them, the buyer's
// request page (through a cookie-keeping HTTP client, e2etest.Browser), a
// receipt's conversion to an e-invoice, and monthly consolidation (the
// month of 5,000 receipts is in package resilience).
package receipts

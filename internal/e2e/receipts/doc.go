// Package receipts tests receipts end to end: recording them, the buyer's
// request page (in a real browser where Chromium is installed), a
// receipt's conversion to an e-invoice, and monthly consolidation.
package receipts

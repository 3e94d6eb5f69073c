// Package documents tests documents end to end: the walkthrough of docs/api.md,
// buyers and sellers, amounts at their limits, bad input, the profile and
// reference data, rate limits, the stored rendering, QR codes and PDFs.
package documents

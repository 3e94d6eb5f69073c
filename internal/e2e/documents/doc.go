// Package documents tests documents end to end: the README's walkthrough,
// buyers and sellers, amounts at their limits, bad input, the profile and
// reference data, rate limits, the stored rendering, QR codes and PDFs.
package documents

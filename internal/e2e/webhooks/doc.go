// Package webhooks tests webhooks end to end: managing them, bad input,
// flaky and bad receivers, and disabling after three days of failures.
package webhooks

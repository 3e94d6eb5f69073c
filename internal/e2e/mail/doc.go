// Package mail holds the end-to-end tests of sharing Valid documents with
// their buyers by mail (DECISIONS 21): the service's own mailbox when no
// mail server is configured, a real SMTP server on loopback (internal/
// testsmtp) with STARTTLS and AUTH, its faults, the settings and their
// templates, sending again, and bad input. The kill and replica tests are
// in internal/e2e/resilience.
package mail

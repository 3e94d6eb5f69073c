// Package received tests the documents other businesses issue to a
// tenant end to end: polling the authority, catching up, faults, and
// documents that cannot be read.
package received

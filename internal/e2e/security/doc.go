// Package security tests the API against the OWASP API Security Top 10
// end to end: object-, property- and function-level authorization,
// authentication, resource limits, misconfiguration and inventory.
package security

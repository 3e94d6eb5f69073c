// Package e2e holds the end-to-end tests of the HTTP API, and nothing else:
// each starts the whole service (`einvoice serve`, in-process through
// servetest, or the real binary as several replicas) on 127.0.0.1:0 and
// drives it over HTTP, on SQLite and on PostgreSQL (set
// EINVOICE_TEST_POSTGRES_URL), through the public Go client (package
// client: typed calls, and its Do for the malformed requests a typed client
// cannot send). Every answer is checked against the OpenAPI
// document (apidoctest), and a run of the whole package fails when a
// documented operation was exercised by no test (zz_contract_test.go).
// The tests of the command itself (flags, subcommands, start-up and
// shutdown, the README's walkthrough) are in internal/cli.
package e2e

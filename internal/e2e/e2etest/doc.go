// Package e2etest is the harness of the end-to-end tests (the packages
// beside it, one per capability), and is imported by nothing else: it
// starts the whole service (`einvoice serve`, in-process through
// servetest) on 127.0.0.1:0 on SQLite and on PostgreSQL (EachEngine; set
// EINVOICE_TEST_POSTGRES_URL), reaches it through the public Go client
// (package client: typed calls, and its Do for the malformed requests a
// typed client cannot send), checks every answer against the OpenAPI
// document (Contract), and holds the fixtures the capabilities share
// (parties, documents, receipts, webhook receivers, tenants). Main is
// every package's TestMain: a `go test` run of the Covering packages in
// full fails when a documented operation was exercised by none of them.
//
// The tests of the command itself (flags, subcommands, start-up and
// shutdown, the shell blocks of the README and docs/) are in internal/cli.
package e2etest

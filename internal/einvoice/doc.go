// Package einvoice is the domain at the centre of the service: tenants and
// their API keys, buyers and on-behalf sellers (parties), the rules that
// decide what a request may store and when a party is ready for the tax
// authority, the error codes every adapter speaks, and the interfaces of the
// storage engines.
//
// It imports only the standard library and the reference code lists
// (internal/refdata, pure data). Adapters (sqlstore, httpapi, ...) are its
// siblings and never import each other; cmd wires them together.
package einvoice

// Package received is the application's received-documents capability
// (DECISIONS 16): the poller that finds, for each tenant in taxpayer mode,
// the documents others issued to it at the authority (notifications, then
// searches from a cursor kept in the database, one replica per tenant at a
// time), reads them with our UBL reader and records their cancellations;
// and the received documents' list, view, raw form and rejection. Its loop
// (Run) is switched by its own setting (Interval) and runs whenever there
// is an authority. It imports the domain (package einvoice) and the UBL
// reader (package ubl); the tenant's credentials and the wake-up of the
// webhook deliveries come as function values.
package received

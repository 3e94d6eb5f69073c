// Package client is the Go client of the einvoice HTTP API: typed requests
// and responses for every operation of the service's OpenAPI document
// (served at /openapi.json), with the standard library only.
//
// Make one [Client] per API key and share it: it is safe for concurrent use.
//
//	c := client.New("http://localhost:8080", os.Getenv("EINVOICE_API_KEY"))
//	buyer, err := c.Buyers.Create(ctx, &client.Party{Name: "Hebat Group Sdn. Bhd.", TIN: "C21638015020", ...})
//	doc, err := c.Documents.Create(ctx, &client.Document{Type: client.TypeInvoice, BuyerID: buyer.ID, ...})
//	res, err := c.Documents.Validate(ctx, doc.ID)
//	sub, err := c.Documents.Submit(ctx, doc.ID)
//
// # Errors
//
// Every answer of the service that is not a success is an [*Error]: its HTTP
// status, the service's machine-readable code (the Code... constants), its
// message, and the problems per field ("invoiceLines.0.unitPrice") or the
// tax authority's own errors. Use [errors.As]:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.Code == client.CodeValidationFailed {
//		for field, problems := range e.Fields { ... }
//	}
//
// A failure to reach the service (DNS, connection, timeout, a cancelled
// context) is returned wrapped, never as an *Error.
//
// # Money
//
// Amounts, quantities and rates are [Decimal]s: exact decimal text, never
// float64. Convert them with the decimal library of your choice.
//
// # Lists
//
// List methods return one [Page]; All methods return an iterator over every
// item of every page (range-over-func), stopping at the first error.
//
// # Retries
//
// Every POST carries an Idempotency-Key: a new random one per call, or the
// caller's ([IdempotencyKey]), the same on every attempt of the call. The
// service keeps the first answer under the key for 24 hours and replays it
// to a repeat (Idempotent-Replayed: true), so a retried POST never acts
// twice. Every method is therefore retried alike: after a connection that
// could not be made, a 429, a 502, 503 or 504, or a broken connection; and
// a POST whose key's first attempt is still running (409
// IDEMPOTENCY_KEY_IN_USE) after a short wait. Waits grow exponentially with
// jitter and follow the service's Retry-After. [WithRetries] sets how many
// retries; 0 turns them off. A request sent through [Client.Do] with the
// Idempotency-Key header removed is a POST without a key, retried only when
// it cannot have been sent.
package client

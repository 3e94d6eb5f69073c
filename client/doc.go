// Package client is the Go client of the einvoice HTTP API: typed requests
// and responses for every operation of the service's OpenAPI document
// (served at /openapi.json), with the standard library only.
//
// Make one [Client] per API key and share it: it is safe for concurrent use.
//
//	c := client.New("http://localhost:8080", os.Getenv("EINVOICE_API_KEY"))
//	buyer, err := c.Buyers.Create(ctx, &client.Party{Name: "Hebat Group Sdn. Bhd.", TIN: "C2584563200", ...})
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
// A request that the service cannot have acted on (the connection could not
// be made, or a 429 answer) is retried for every method; a request that is
// safe to repeat (GET, PUT and DELETE) is also retried after a 502, 503 or 504
// answer or a broken connection; a POST is too when it carries an
// idempotency key ([IdempotencyKey]). Waits grow exponentially with jitter
// and follow the service's Retry-After. [WithRetries] sets how many retries;
// 0 turns them off.
package client

// Package sandbox is a built-in simulator of the MyInvois tax authority. It
// speaks the authority's HTTP protocol (../../../shared/reference/myinvois.md,
// section 1) and keeps its state in the service's database, in its own
// sandbox_* tables, so that it survives restarts and every replica on the
// database sees the same tokens, submissions and documents.
//
// # Endpoints
//
//	POST /connect/token                                   login (client credentials, optional onbehalfof header)
//	POST /api/v1.0/documentsubmissions/                   submit up to 100 documents
//	GET  /api/v1.0/documentsubmissions/{submissionUid}    get submission (pageNo, pageSize)
//	GET  /api/v1.0/documents/{uuid}/raw                   document as submitted (not for Invalid ones)
//	GET  /api/v1.0/documents/{uuid}/details               document with its validation results
//	PUT  /api/v1.0/documents/state/{uuid}/state           cancel or reject
//	GET  /api/v1.0/documents/search                       search the caller's documents
//	GET  /api/v1.0/taxpayer/validate/{tin}                validate a TIN (idType, idValue)
//
// Every response carries a correlationId header; errors have the
// authority's shape {"error": {"code", "message", "target", "details"}},
// the token endpoint's the OAuth shape {"error", "error_description",
// "error_uri"}, and validation results the {propertyName, propertyPath,
// errorCode, error, errorMs, innerError} shape. Bad input is answered 400,
// never 500.
//
// # Differences from the authority
//
//   - Login registers a client_id with its client_secret at its first login
//     (trust on first use); later logins must give the same secret. Tokens last
//     an hour and are random strings (not JWTs), stored hashed.
//   - Only JSON documents are accepted; an XML document is rejected at
//     submission (FormatNotSupported).
//   - Any client may ask for a document's rejection (there is no second
//     taxpayer to log in as); cancellation stays with the submitting client.
//   - Every well-formed TIN exists except the reserved not-found set (see
//     NotFoundTIN).
//   - Totals are shown as the document carries them, without conversion to
//     MYR.
//   - Get Submission answers 403 to another client; Get Document answers 404
//     to anyone but the submitting client and (for Valid or Cancelled
//     documents) the client whose onbehalfof TIN is the receiver and which
//     itself issues documents for that TIN (an onbehalfof header alone does
//     not make a caller the buyer); the Received search follows the same
//     rule. createdByUserId is always empty.
//
// # Submission
//
// A submission is refused whole with 400 BadStructure (an envelope that is
// not {documents: [{format, document, documentHash, codeNumber}]}, no
// documents, a format other than JSON or XML, mixed formats), 400
// MaximumSizeExceeded (over 100 documents or a body over 5 MB), or 422
// DuplicateSubmission with Retry-After (the same body from the same client
// within 10 minutes). Otherwise it is answered 202, and each document is
// accepted or rejected on its own; a rejected document carries an error
// {code: "ValidationError", message, target: codeNumber, details: [{code,
// message, target, propertyPath}]} whose detail code is one of
// CodeNumberRequired, DuplicateCodeNumber (the same codeNumber twice in the
// submission: every copy is rejected), DocumentRequired, InvalidBase64,
// DocumentHashMismatch (documentHash is the hex SHA-256 of the decoded
// bytes, compared case-insensitively), MaximumSizeExceeded (over 300 KB),
// FormatNotSupported, InvalidJSON, a structure code (ArrayExpected,
// ObjectExpected, ScalarExpected, StringExpected, PropertyRequired,
// PropertyNotAllowed, InvalidValue, SingleItemExpected,
// MaximumDepthExceeded, with the JSON path), CodeNumberMismatch (codeNumber
// is not the document's ID) or IncorrectSubmitter ("The authenticated TIN
// and documents TIN is not matching": with onbehalfof, the issuer's TIN,
// the supplier's or for self-billed types 11-14 the buyer's, must be the
// onbehalfof TIN).
//
// The structure check wants the UBL JSON form: a root with _D (the Invoice-2
// namespace), _A, _B and one Invoice; every element an array of objects;
// leaves objects with a scalar "_" and string attributes; and ID,
// IssueDate, IssueTime, InvoiceTypeCode (01-04, 11-14, with listVersionID
// 1.0-1.3), DocumentCurrencyCode, AccountingSupplierParty and
// AccountingCustomerParty (each with a TIN), TaxTotal, LegalMonetaryTotal and
// at least one InvoiceLine. UBLExtensions and Signature are left to the
// signature check.
//
// # Verdicts
//
// Accepted documents get a uuid (26 upper-case letters and digits) and their
// verdict is decided at once and stored, but they show as Submitted for
// Options.Delay after they were received; then as Valid (with a 40-character
// longId and dateTimeValidated = received + Delay) or Invalid. A document is
// Invalid, with the failed steps in its details, when:
//
//   - Step02-Core Fields Validator (Error02): its IssueDate and IssueTime
//     are unreadable (CF320), in the future (CF322) or more than 72 hours
//     before now (CF321);
//   - Step03-Duplicated Submission Validator (Error03, DS302): a document of
//     the same type code, codeNumber, issue date and time and issuer TIN
//     that was not Invalid was received within 2 hours;
//   - Step05-Taxpayer Validator (Error05): the supplier's (ERR405) or
//     buyer's (ERR406) TIN is in the reserved not-found set;
//   - Step06-Referenced Documents Validator (Error06): a
//     BillingReference/InvoiceDocumentReference UUID other than "NA" is
//     unknown (RD301), not Valid now (RD302) or another issuer's (RD303), a
//     credit, debit or refund note references nothing (RD304), or more than
//     100 documents (RD305);
//   - Step08-Document Signature Validator (Error21, with the verifier's
//     text): the version is 1.1 or 1.3, Options.VerifySignature is set, and
//     it fails. The inner code is the Code of a *dsig.VerifyError (DS320,
//     DS322, DS323, DS333, or DS300 for a malformed signature), DS300 for
//     any other error.
//
// The error codes other than Error03/DS302 and Error21 with DS320/DS322
// are the sandbox's own.
//
// # Cancel and reject
//
// PUT .../state with {"status": "cancelled" | "rejected", "reason": 1-300
// characters}. Cancel answers 200 {uuid, status: "Cancelled"}; reject
// records the request (rejectRequestDateTime, documentStatusReason; the
// document stays Valid) and answers 200 {uuid, status: "Requested for
// Rejection"}. Refusals: 404 NotFound, 403 Forbidden (cancel by another
// client), 400 IncorrectState (not Valid, or a rejection already
// requested), 400 OperationPeriodOver (more than 72 hours after validation),
// 400 ActiveReferencingDocuments (cancel while a Valid, uncancelled note
// references the document).
//
// # Search
//
// submissionDateFrom/To or issueDateFrom/To (at most 31 days; to is
// inclusive to its second), invoiceDirection Sent (default) or Received,
// status, documentType, uuid, searchQuery (uuid, internalId or a TIN
// exactly, or part of a party name), pageNo, pageSize (at most 100);
// newest first; {result, metadata: {totalPages, totalCount}}.
//
// # Rate limits
//
// With Options.RateLimits, each client (its client_id; by address for a
// login without one) gets per minute: login 12, submit 100, get submission
// 300, details 125, raw 60, cancel/reject 12, TIN 60, search 12. Responses
// carry X-Rate-Limit-Limit and X-Rate-Limit-Remaining; over the limit, 429
// with Retry-After and X-Rate-Limit-Reset. The windows are in the database.
//
// # Faults and statistics
//
// Faults (AddFault, ClearFaults, or POST and DELETE /sandbox/faults with
// {"endpoint", "kind", "count", "share", "delay": "1.5s", "retryAfter"})
// make protocol calls fail, throttle, wait or lose their connection. They
// live in the memory of one process: each replica has its own. Stats (and
// GET /sandbox/stats) counts submissions and documents from the database,
// and the calls each kind of fault affected in this process (faults, by
// "endpoint/kind"). Seed (Go only) stores many documents of a client at
// once, for tests of searches past the 10,000 results one search lists.
// These routes, like the whole sandbox, have no authentication: never
// expose a sandbox where real data is.
//
// # Validation links
//
// A Valid document's link is {PortalURL}/{uuid}/share/{longId}. The Server
// serves a small page for such links at GET {PortalPath}/{uuid}/share/{longId}
// (Valid and Cancelled documents; 404 otherwise). The default PortalURL,
// http://localhost:8080/sandbox/portal, reaches it when the sandbox is
// mounted under /sandbox of a service on port 8080, as `einvoice serve` does.
package sandbox

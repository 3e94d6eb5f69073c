// Package sandbox is a built-in simulator of the MyInvois tax authority. It
// speaks the authority's HTTP protocol (../../../shared/reference/myinvois.md,
// section 1) and keeps its state in the service's database, in its own
// sandbox_* tables, so that it survives restarts and every replica on the
// database sees the same tokens, submissions and documents.
//
// # Endpoints
//
//	POST /connect/token                                   login (client credentials, optional onbehalfof header)
//	GET  /api/v1.0/documenttypes                          document types {result: [...]}
//	GET  /api/v1.0/documenttypes/{id}                     one type, with its versions and workflow parameters
//	GET  /api/v1.0/documenttypes/{id}/versions/{vid}      one version of a type
//	GET  /api/v1.0/notifications/taxpayer                 the caller's notifications (dateFrom, dateTo, type, language, status, pageNo, pageSize)
//	GET  /api/v1.0/taxpayer/validate/{tin}                validate a TIN (idType, idValue; the id cross-checked)
//	POST /api/v1.0/documentsubmissions/                   submit up to 100 documents
//	PUT  /api/v1.0/documents/state/{uuid}/state           cancel (the issuer) or reject (the receiver)
//	GET  /api/v1.0/documents/recent                       the caller's documents of the last 31 days
//	GET  /api/v1.0/documentsubmissions/{submissionUid}    get submission (pageNo, pageSize)
//	GET  /api/v1.0/documents/{uuid}/raw                   document as submitted (not for Invalid ones)
//	GET  /api/v1.0/documents/{uuid}/details               document with its validation results
//	GET  /api/v1.0/documents/search                       search the caller's documents (Sent or Received)
//	GET  /api/v1.0/taxpayer/search/tin                    the TIN of a taxpayer (taxpayerName, idType + idValue, fileType)
//	GET  /api/v1.0/taxpayers/qrcodeinfo/{qrCodeText}      a taxpayer's details from its QR code
//
// Every response carries a correlationId header; errors have the
// authority's shape {"error": {"code", "message", "target", "details"}},
// the token endpoint's the OAuth shape {"error", "error_description",
// "error_uri"}, and validation results the {propertyName, propertyPath,
// errorCode, error, errorMs, innerError} shape. Bad input is answered 400,
// never 500.
//
// # Clients and tokens
//
// Each client (client id and secret) is bound to one taxpayer TIN: a client
// registered with AddClient (`einvoice sandbox client add --tin ...`), or
// one Options.Clients finds (BindTenants: the built-in sandbox of `serve`
// binds the credentials in each tenant's profile on the sandbox environment
// to the profile's TIN, looked up at each login so that a change of either
// is followed). An intermediary's client is bound to its own TIN and may
// log in with an onbehalfof header for each TIN it represents
// (Client.Represents; a profile in intermediary mode: its
// authority.intermediaryTin, acting for its represented TIN). An unknown
// client id or a wrong secret is refused 400 invalid_client; an onbehalfof
// the client may not act for, 400 unauthorized_client; onbehalfof the
// client's own TIN is a plain taxpayer login.
//
// Access tokens are JWTs (github.com/golang-jwt/jwt/v5) signed HS256 with
// a key kept in sandbox_keys (replicas share it), lasting an hour, with the
// claims iss (the origin the login came to), nbf, iat, exp, aud, scope,
// jti, client_id, name
// ("TIN:client_id"), TaxpayerTIN (the represented taxpayer for an
// intermediary), IsIntermediary ("0" or "1"), IntermedTIN and, when given,
// onbehalfof. They are also stored (hashed) and checked server-side: a
// token is valid while its row is.
//
// The logged-in taxpayer (the represented one for an intermediary) must be
// the issuer of every document it submits: the supplier, or the buyer of
// the self-billed types 11-14. Otherwise the whole submission is refused,
// 403 {"error": {"code": "IncorrectSubmitter", "message": "The
// authenticated TIN and documents TIN is not matching", "target":
// "submission", "details": [one per such document, target its
// codeNumber]}}: the authority lists IncorrectSubmitter among the
// submission's synchronous errors, and the one body seen in the wild has
// the top-level error shape.
//
// A document issued to the TIN a client is bound to, by another client, is
// that client's received document (a taxpayer login: an intermediary sees
// only the documents it submitted): once Valid (or Cancelled) it can read
// it (raw, details), it shows in its recent documents and search with
// direction Received and in its notifications, and only it may reject it
// (within 72 hours of validation). Only the submitting client cancels.
//
// Notifications are made from the caller's documents, newest first: 7
// "Document validated" for each of its documents that became Valid, 6
// "Document received" for each received one, 8 "Document cancelled" and 15
// "Document rejection initiated" on either side; all in English and
// delivered (status 4), so that language ms and other statuses and types
// list nothing. metadata is {hasNext}.
//
// Search TIN and taxpayer QR info know the taxpayers bound to clients (the
// registered clients' TIN, name and id; the tenants' profiles in taxpayer
// mode, with their address and contacts for QR info): search TIN matches
// taxpayerName (ignoring case) and/or idType with idValue, and fileType (1:
// IG TINs, 2: the others); none is 404, more than one TIN 400 BadRequest.
//
// # Differences from the authority
//
//   - Tokens are signed HS256 with the sandbox's own key (the authority's
//     are RS256, with its identity server's key); clients should not
//     verify them, only decode them.
//   - A taxpayer's QR code text is its TIN (the authority's is an opaque
//     id behind a base64 QR code), and QR info answers only for taxpayers
//     bound to sandbox clients; search TIN too (the authority knows every
//     taxpayer).
//   - Document types: ids are the type codes as numbers (1 for 01, 11 for
//     11), version ids the type id times 100 plus the minor version (101 is
//     1.1 of type 1); invoiceTypeCode is a JSON number, as the SDK
//     documents it (one peer's client decodes it as the string "01");
//     every version 1.0-1.3 is published; the Get Document Type Version
//     answer has no schema; the workflow parameters are the 72-hour
//     windows. Where the reference is silent, the shapes follow the SDK
//     pages.
//   - Notifications exist only for the document events above; none for
//     profile changes, none in Malay, no e-mail is sent (address is "").
//   - Recent documents: receiverIdType, receiverId, issuerIdType and
//     issuerId are accepted and ignored (the sandbox does not keep the
//     parties' ids); intermediaryName, intermediaryTin and intermediaryRob
//     are null; submissionChannel is always ERP.
//   - XML documents are checked by the UBL JSON form's rules after
//     conversion (see Submission), not against the UBL 2.1 XML schema:
//     element namespaces (cbc, cac, ext) and element order are not checked,
//     and a DOCTYPE is refused outright. InvalidXML, for XML that is not
//     well formed, is the sandbox's own code (the authority's answer to
//     malformed XML is not documented; InvalidJSON's "JSON is not valid" is
//     the observed JSON counterpart).
//   - XML signatures are verified by dsig.VerifyXML (einvoice wires it as
//     Options.VerifyXMLSignature): the document digest and signature value
//     over the canonical document without ext:UBLExtensions and
//     cac:Signature (the canonicalisation the document Reference names, C14N
//     1.1 by default, by goxmldsig), the certificate digest, and the signed
//     properties digest over the element's bytes or its C14N 1.1 form. The
//     rule is checked against one outside vector only: the signing golden of
//     klsheng's signer verifies over the document it signed (listVersionID
//     1.0; as published, relabelled 1.1 after signing, it is DS322, as its
//     JSON twin is under dsig.Verify). The authority's own signed XML sample
//     (one-doc-signed.xml, identical to 1.1-Invoice-Sample.xml) reproduces
//     by none of C14N 1.1, its declared exclusive C14N or C14N 1.0, with or
//     without whitespace and the XML declaration, so how the authority
//     canonicalises is not confirmed: a document it accepts might fail here
//     with DS322.
//   - Every well-formed TIN exists except the reserved not-found set (see
//     NotFoundTIN). Validate TIN's id cross-check: a TIN bound to a sandbox
//     client (Options.BoundIdentity) matches only that client's id; any
//     other TIN matches any id except one whose digits are all 9.
//   - The TIN rules' inner codes ERR405 (supplier), ERR406 (buyer) and
//     ERR407 (shipping recipient) are the sandbox's own; the authority's
//     codes for a malformed or unknown TIN in a document are not published.
//     ERR237 (an individual invoice to the General Public) is the
//     authority's; an invoice counts as consolidated when a line is
//     classified 004. The other rules of the special TINs (reference 2.7)
//     are the sandbox's reading of the guideline.
//   - Signing certificates must chain to the sandbox's own test certificate
//     authority (CACertificatePEM, `einvoice sandbox ca`; IssueCertificate,
//     `einvoice sandbox issue-cert`) or to one in Options.TrustedCAs
//     (`--sandbox-trust-ca`), not to the MCMC-licensed authorities; revocation
//     is not checked. The intermediate certificates of a chain must be among
//     the trusted ones (a document carries only its signing certificate).
//   - X509IssuerName is compared name by name in order (another order is
//     DS326), ignoring spaces around '=' and ',' and the case of attribute
//     names; the authority's exact comparison is not published.
//   - Totals are shown as the document carries them, without conversion to
//     MYR.
//   - Sent documents (Get Submission, search and recent Sent, cancel) are
//     the submitting client's, not every client's of the same TIN. Get
//     Submission answers 403 to another client. createdByUserId is always
//     empty.
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
// InvalidJSON or InvalidXML, a structure code (ArrayExpected,
// ObjectExpected, ScalarExpected, StringExpected, PropertyRequired,
// PropertyNotAllowed, InvalidValue, SingleItemExpected,
// MaximumDepthExceeded, with the JSON path) or CodeNumberMismatch (codeNumber
// is not the document's ID). A document of another issuer refuses the whole
// submission (403 IncorrectSubmitter, above).
//
// A document of format XML (any case; all documents of a submission share
// one format) is UTF-8 UBL 2.1 XML (a byte order mark allowed), hashed and
// limited as a JSON one. It is converted into the UBL JSON form (the root's
// namespace as _D, each element an array entry under its local name in
// document order, an element with child elements an object, one without a
// leaf {"_": text} with its attributes as string fields; amounts,
// quantities, percents, rates, measures and numerics numbers when plain
// decimals, indicators booleans) and judged from there by the same rules
// as a JSON document. XML that is
// not well formed, has a DOCTYPE (so no entity is ever expanded), text
// outside its root or another encoding than UTF-8 is rejected with the
// detail InvalidXML; nesting past the structure check's depth with
// MaximumDepthExceeded. Raw returns the XML as submitted.
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
//   - Step05-Taxpayer Validator (Error05): a TIN of the document, the
//     supplier's (ERR405), the buyer's (ERR406) or a shipping recipient's
//     (Delivery/DeliveryParty, ERR407), is not well formed (the form Validate
//     TIN applies: the samples' placeholders such as "Supplier's TIN" fail),
//     is in the reserved not-found set, or is a special TIN where the
//     authority does not allow it: the issuer never has one; a buyer may
//     have 010, 020 or 040; a self-billed document's supplier 010 or 030; a
//     recipient any but 030. An invoice (01) to the General Public
//     (EI00000000010) that is not consolidated is ERR237. The rules are a
//     function of the parsed document (checkTaxpayers of a docInfo),
//     whatever its format;
//   - Step06-Referenced Documents Validator (Error06): a
//     BillingReference/InvoiceDocumentReference UUID other than "NA" is
//     unknown (RD301), not Valid now (RD302) or another issuer's (RD303), a
//     credit, debit or refund note references nothing (RD304), or more than
//     100 documents (RD305);
//   - Step08-Document Signature Validator (Error21): the version is 1.1 or
//     1.3, Options.VerifySignature is set, and it fails (the inner code is
//     the Code of a *dsig.VerifyError: DS320, DS322, DS323, DS333, DS301
//     when the document has no signature block, or DS300 for a malformed
//     one; DS300 for any other error), or the signing
//     certificate fails a rule of the authority's profile (judgeCertificate,
//     each with the authority's DS3xx code and message): X509IssuerName
//     missing (DS324) or not the certificate's issuer in the same order
//     (DS326); X509SerialNumber missing (DS325), not decimal (DS327) or not
//     the certificate's (DS328); SigningTime unreadable (DS336); the
//     certificate expired, not yet valid or not valid at the signing time
//     (DS304); no Document Signing extended key usage or no Non-Repudiation
//     (DS334); a personal certificate, without O (DS309); no
//     organizationIdentifier (DS307); an organizationIdentifier that is not a
//     TIN (DS338), not found (DS330) or not the signer's TIN, the issuer's or
//     an intermediary's own (DS311); no subject serialNumber, the BRN
//     (DS306); and a chain to no trusted authority (DS329, see Trust store).
//     XML documents go to Options.VerifyXMLSignature instead (nil: not
//     checked), with the same codes; their certificates are judged alike
//     (dsig.ReadSignatureXML).
//
// The error codes other than Error03/DS302, ERR237, Error21 and the DS3xx
// codes of the signing certificate are the sandbox's own.
//
// # Trust store
//
// The sandbox makes a test certificate authority once per database, by
// whichever process needs it first (sandbox_ca: replicas and restarts share
// it; its key sealed with Options.Secrets, the service's secret key, and
// never served). CACertificatePEM prints it (`einvoice sandbox ca`);
// IssueCertificate issues signing certificates from it that conform to the
// authority's profile (`einvoice sandbox issue-cert --tin TIN`), so that
// tests and users can sign documents the sandbox trusts. Options.TrustedCAs
// (`--sandbox-trust-ca FILE`, env EINVOICE_SANDBOX_TRUST_CA) adds other
// authorities. CheckChain answers for the go-live check whether a
// certificate chains to one of them.
//
// # Cancel and reject
//
// PUT .../state with {"status": "cancelled" | "rejected", "reason": 1-300
// characters}. Cancel (by the submitting client) answers 200 {uuid, status:
// "Cancelled"}; reject (by the receiver) records the request (rejectRequestDateTime, documentStatusReason; the
// document stays Valid) and answers 200 {uuid, status: "Requested for
// Rejection"}. Refusals: 404 NotFound, 403 Forbidden (cancel by another
// client than the issuer's, reject by another than the receiver), 400 IncorrectState (not Valid, or a rejection already
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
// 300, details 125, raw 60, cancel/reject 12, TIN 60, search 12, recent
// 12, search TIN and QR info 60 (document types and notifications have no
// limit). Responses
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

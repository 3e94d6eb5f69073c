package sandbox

import (
	"context"
	"crypto/x509"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Submission limits and the duplicate-payload window.
const (
	maxSubmissionBytes     = 5 << 20
	maxDocumentBytes       = 300 << 10
	maxDocuments           = 100
	duplicatePayloadWindow = 10 * time.Minute
)

// submittedDoc is one entry of a submission's documents.
type submittedDoc struct {
	Format       string `json:"format"`
	Document     string `json:"document"`
	DocumentHash string `json:"documentHash"`
	CodeNumber   string `json:"codeNumber"`
}

type acceptedDoc struct {
	UUID       string `json:"uuid"`
	CodeNumber string `json:"invoiceCodeNumber"`
}

type rejectedDoc struct {
	CodeNumber string   `json:"invoiceCodeNumber"`
	Error      apiError `json:"error"`
}

// candidate is a document that passed the submission checks; its verdict
// is decided in the submission's transaction.
type candidate struct {
	codeNumber string
	raw        []byte
	info       docInfo
	issued     *time.Time
	v          verdict
}

// slowSubmission is the time from receipt to storage past which a
// submission is logged: a search in between does not list it yet.
const slowSubmission = time.Second

// errDuplicatePayload rolls back a submission whose payload was seen
// within duplicatePayloadWindow.
var errDuplicatePayload = errors.New("duplicate submission payload")

// handleSubmit is POST /api/v1.0/documentsubmissions/.
func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request, c caller) {
	now := s.now()
	body, tooBig, err := readAll(w, r, maxSubmissionBytes)
	if tooBig {
		writeError(w, http.StatusBadRequest, apiError{Code: "MaximumSizeExceeded", Target: "submission",
			Message: "A submission may not exceed 5 MB; split it"})
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, apiError{Code: "BadStructure", Message: "The request body could not be read", Target: "submission"})
		return
	}
	docs, bad := readEnvelope(body)
	if bad != nil {
		writeError(w, http.StatusBadRequest, *bad)
		return
	}
	// A submission read whole is processed whole, as the authority does:
	// a client that gives up waiting (its timeout) does not undo it, and
	// finds it by a search afterwards.
	ctx := context.WithoutCancel(r.Context())

	counts := map[string]int{}
	for _, d := range docs {
		counts[d.CodeNumber]++
	}
	j, err := s.certJudge(ctx, c, now)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	var rejected []rejectedDoc
	var cands []*candidate
	var wrongIssuer []apiError
	for _, d := range docs {
		cd, rej := s.precheck(d, counts, c, j, now)
		switch {
		case rej != nil && rej.Code == codeIncorrectSubmitter:
			wrongIssuer = append(wrongIssuer, *rej)
		case rej != nil:
			rejected = append(rejected, rejectedDoc{CodeNumber: d.CodeNumber, Error: *rej})
		default:
			cands = append(cands, cd)
		}
	}
	if len(wrongIssuer) > 0 {
		// The authority refuses the whole submission (403), naming no
		// document accepted.
		writeError(w, http.StatusForbidden, apiError{Code: codeIncorrectSubmitter, Message: msgIncorrectSubmitter, Target: "submission",
			Details: wrongIssuer})
		return
	}

	var uid string
	var accepted []acceptedDoc
	var retryAt time.Time
	err = s.tx(ctx, func(tx *sql.Tx) error {
		uid, accepted = "", nil
		first, fresh, err := claimPayload(ctx, tx, c.ClientID, sha256Hex(body), now)
		if err != nil {
			return err
		}
		if !fresh {
			retryAt = first.Add(duplicatePayloadWindow)
			return errDuplicatePayload
		}
		if len(cands) == 0 {
			return nil
		}
		uid = newID(uidLen)
		if _, err := tx.ExecContext(ctx, `INSERT INTO sandbox_submissions (uid, client_id, on_behalf_of, received_at, document_count)
			VALUES ($1, $2, $3, $4, $5)`, uid, c.ClientID, c.OnBehalfOf, micros(now), len(cands)); err != nil {
			return fmt.Errorf("store submission: %w", err)
		}
		for pos, cd := range cands {
			id, err := s.store(ctx, tx, uid, pos, c, cd, now)
			if err != nil {
				return err
			}
			accepted = append(accepted, acceptedDoc{UUID: id, CodeNumber: cd.codeNumber})
		}
		return nil
	})
	if errors.Is(err, errDuplicatePayload) {
		wait := int((retryAt.Sub(now) + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", itoa(max(wait, 1)))
		writeError(w, http.StatusUnprocessableEntity, apiError{Code: "DuplicateSubmission", Target: "submission",
			Message: "An identical submission was received within the last 10 minutes"})
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if lag := s.now().Sub(now); uid != "" && lag > slowSubmission {
		// A client that gave up waiting searches for what it sent; until
		// now, the search did not list this submission.
		s.log.WarnContext(ctx, "sandbox: submission stored long after it was received", "submission_uid", uid,
			"documents", len(accepted), "received_at", now, "lag", lag)
	}
	s.sweep(r, now)
	var uidOut *string
	if uid != "" {
		uidOut = &uid
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"submissionUid":     uidOut,
		"acceptedDocuments": nonNil(accepted),
		"rejectedDocuments": nonNil(rejected),
	})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// readEnvelope decodes and checks a submission's envelope: 1 to 100
// documents sharing one format (JSON or XML).
func readEnvelope(body []byte) ([]submittedDoc, *apiError) {
	var env struct {
		Documents []submittedDoc `json:"documents"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, &apiError{Code: "BadStructure", Message: "The submission is not valid JSON of the form {documents: [{format, document, documentHash, codeNumber}]}", Target: "submission"}
	}
	if len(env.Documents) == 0 {
		return nil, &apiError{Code: "BadStructure", Message: "The submission has no documents", Target: "documents"}
	}
	if len(env.Documents) > maxDocuments {
		return nil, &apiError{Code: "MaximumSizeExceeded", Message: "A submission may hold at most 100 documents; split it", Target: "documents"}
	}
	format := ""
	for i, d := range env.Documents {
		f := strings.ToUpper(strings.TrimSpace(d.Format))
		if f != "JSON" && f != "XML" {
			return nil, &apiError{Code: "BadStructure", Message: "format must be JSON or XML", Target: "documents[" + itoa(i) + "].format"}
		}
		if format != "" && f != format {
			return nil, &apiError{Code: "BadStructure", Message: "All documents of a submission must have the same format", Target: "documents[" + itoa(i) + "].format"}
		}
		format = f
	}
	return env.Documents, nil
}

// rejection is the error of a document refused at submission.
func rejection(codeNumber, detail, target, msg string) *apiError {
	return &apiError{Code: "ValidationError", Message: msg, Target: codeNumber,
		Details: []apiError{{Code: detail, Message: msg, Target: target}}}
}

// precheck applies the submission-time rules to one document and, when it
// passes them, the validation steps that need no database.
// The issuer rule's refusal: the logged-in taxpayer (or the one an
// intermediary acts for) is not the document's issuer.
const (
	codeIncorrectSubmitter = "IncorrectSubmitter"
	msgIncorrectSubmitter  = "The authenticated TIN and documents TIN is not matching"
)

func (s *Server) precheck(d submittedDoc, counts map[string]int, c caller, j *certJudge, now time.Time) (*candidate, *apiError) {
	code := d.CodeNumber
	switch {
	case strings.TrimSpace(code) == "":
		return nil, rejection(code, "CodeNumberRequired", "codeNumber", "codeNumber is required")
	case counts[code] > 1:
		return nil, rejection(code, "DuplicateCodeNumber", "codeNumber", "The codeNumber "+code+" appears more than once in the submission")
	case d.Document == "":
		return nil, rejection(code, "DocumentRequired", "document", "document is required")
	}
	raw, err := base64.StdEncoding.DecodeString(d.Document)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(d.Document); err != nil {
			return nil, rejection(code, "InvalidBase64", "document", "document is not valid base64")
		}
	}
	switch {
	case !strings.EqualFold(strings.TrimSpace(d.DocumentHash), sha256Hex(raw)):
		return nil, rejection(code, "DocumentHashMismatch", "documentHash", "documentHash is not the SHA-256 of the document")
	case len(raw) > maxDocumentBytes:
		return nil, rejection(code, "MaximumSizeExceeded", "document", "A document may not exceed 300 KB")
	}
	isXML := strings.EqualFold(strings.TrimSpace(d.Format), "XML")
	parse := parseDocument
	if isXML {
		parse = parseXMLDocument
	}
	info, serrs, err := parse(raw)
	if err != nil {
		if isXML {
			return nil, rejection(code, "InvalidXML", "document", "XML is not valid")
		}
		return nil, rejection(code, "InvalidJSON", "document", "JSON is not valid")
	}
	if len(serrs) > 0 {
		e := &apiError{Code: "ValidationError", Message: "The document does not have the UBL structure", Target: code,
			PropertyPath: "#/" + serrs[0].Path}
		for _, se := range serrs {
			e.Details = append(e.Details, apiError{Code: se.Code, Message: se.message(), Target: "document", PropertyPath: "#/" + se.Path})
		}
		return nil, e
	}
	if info.ID != code {
		return nil, rejection(code, "CodeNumberMismatch", "codeNumber", "codeNumber must equal the document's ID")
	}
	if issuer, _ := info.issuer(); c.TIN() == "" || !strings.EqualFold(issuer, c.TIN()) {
		return nil, &apiError{Code: codeIncorrectSubmitter, Message: msgIncorrectSubmitter, Target: code}
	}
	cd := &candidate{codeNumber: code, raw: raw, info: info}
	cd.issued, cd.v.core = checkCoreFields(info, now)
	cd.v.taxpayer = checkTaxpayers(info)
	cd.v.signature = s.checkSignature(info, raw, isXML, j)
	return cd, nil
}

// certJudge returns what judging signing certificates needs for a
// submission of caller c; nil when signatures are not checked.
func (s *Server) certJudge(ctx context.Context, c caller, now time.Time) (*certJudge, error) {
	if s.verify == nil {
		return nil, nil
	}
	roots, err := s.roots(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// The test CA cannot be read (say, its key was sealed under another
		// secret key): judge against the other trusted authorities rather
		// than fail every submission.
		s.log.Error("sandbox: the test certificate authority is unusable; only --sandbox-trust-ca authorities are trusted", "err", err)
		roots = x509.NewCertPool()
		for _, c := range s.trusted {
			roots.AddCert(c)
		}
	}
	j := &certJudge{roots: roots, now: now}
	if c.OnBehalfOf != "" {
		// An intermediary signs with its own certificate (DECISIONS 14):
		// the TIN its client is bound to.
		j.signerTIN = c.Taxpayer
	}
	return j, nil
}

// claimPayload records a submission payload's hash for the client; fresh
// is false (with the first sighting) when it was seen within the window.
func claimPayload(ctx context.Context, tx *sql.Tx, client, hash string, now time.Time) (first time.Time, fresh bool, err error) {
	rows, err := tx.QueryContext(ctx, `INSERT INTO sandbox_payloads (client_id, payload_hash, received_at) VALUES ($1, $2, $3)
		ON CONFLICT (client_id, payload_hash) DO UPDATE SET received_at = excluded.received_at
		WHERE sandbox_payloads.received_at <= $4
		RETURNING received_at`, client, hash, micros(now), micros(now.Add(-duplicatePayloadWindow)))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("record payload: %w", err)
	}
	fresh = rows.Next()
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return time.Time{}, false, fmt.Errorf("record payload: %w", err)
	}
	if fresh {
		return now, true, nil
	}
	var us int64
	if err := tx.QueryRowContext(ctx, `SELECT received_at FROM sandbox_payloads WHERE client_id = $1 AND payload_hash = $2`,
		client, hash).Scan(&us); err != nil {
		return time.Time{}, false, fmt.Errorf("read payload: %w", err)
	}
	return fromMicros(us), false, nil
}

// store decides the verdict of an accepted document (the steps that read
// the database) and stores it.
func (s *Server) store(ctx context.Context, tx *sql.Tx, uid string, pos int, c caller, cd *candidate, now time.Time) (string, error) {
	id := newID(uidLen)
	v := cd.v
	known, fail, err := s.checkReferences(ctx, tx, cd.info, now)
	if err != nil {
		return "", err
	}
	v.references = fail
	if v.duplicate, err = checkDuplicate(ctx, tx, cd.info, id, v.validExceptDuplicate(), now); err != nil {
		return "", err
	}
	outcome, longID := statusInvalid, ""
	if v.valid() {
		outcome, longID = statusValid, newID(longIDLen)
	}
	steps, err := json.Marshal(v.steps())
	if err != nil {
		return "", fmt.Errorf("encode validation: %w", err)
	}
	d := cd.info
	issuerTIN, issuerName := d.issuer()
	receiverTIN, receiverName := d.receiver()
	issuedText := strings.TrimSpace(d.IssueDate) + "T" + strings.TrimSpace(d.IssueTime)
	var issuedAt *int64
	if cd.issued != nil {
		issuedText = formatTime(*cd.issued)
		us := micros(*cd.issued)
		issuedAt = &us
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sandbox_documents (uuid, submission_uid, position, client_id, on_behalf_of,
		internal_id, type_code, type_version, issuer_tin, issuer_name, receiver_tin, receiver_name, date_time_issued, issued_at,
		total_excluding_tax, total_discount, total_net_amount, total_payable_amount, received_at, validated_at, verdict,
		long_id, validation, document)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`,
		id, uid, pos, c.ClientID, c.OnBehalfOf, d.ID, d.TypeCode, d.Version, issuerTIN, issuerName, receiverTIN, receiverName,
		issuedText, issuedAt, d.TotalExcludingTax, d.TotalDiscount, d.TotalNet, d.TotalPayable, micros(now),
		micros(now.Add(s.delay)), outcome, longID, string(steps), string(cd.raw))
	if err != nil {
		return "", fmt.Errorf("store document: %w", err)
	}
	for _, ref := range known {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sandbox_references (document_uuid, referenced_uuid) VALUES ($1, $2)`, id, ref); err != nil {
			return "", fmt.Errorf("store reference: %w", err)
		}
	}
	return id, nil
}

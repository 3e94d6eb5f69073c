package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
)

// The validation steps the sandbox runs, as the authority names them.
const (
	stepStructure  = "Step01-Structure Validator"
	stepCoreFields = "Step02-Core Fields Validator"
	stepDuplicate  = "Step03-Duplicated Submission Validator"
	stepTaxpayer   = "Step05-Taxpayer Validator"
	stepReferences = "Step06-Referenced Documents Validator"
	stepSignature  = "Step08-Document Signature Validator"
)

// Time rules.
const (
	// maxIssueAge is how old an issue date and time may be at submission.
	maxIssueAge = 72 * time.Hour
	// duplicateDocumentWindow is the DS302 window.
	duplicateDocumentWindow = 2 * time.Hour
)

// Statuses of a document.
const (
	statusSubmitted = "Submitted"
	statusValid     = "Valid"
	statusInvalid   = "Invalid"
	statusCancelled = "Cancelled"
)

// stepError is the authority's validation error ({propertyName,
// propertyPath, errorCode, error, errorMs, innerError}).
type stepError struct {
	PropertyName *string     `json:"propertyName"`
	PropertyPath *string     `json:"propertyPath"`
	ErrorCode    string      `json:"errorCode"`
	Error        string      `json:"error"`
	ErrorMs      string      `json:"errorMs"`
	InnerError   []stepError `json:"innerError"`
}

// validationStep is one step of validationResults.
type validationStep struct {
	Name   string     `json:"name"`
	Status string     `json:"status"`
	Error  *stepError `json:"error,omitempty"`
}

// stepFailure builds a failed step's error: the step's code and name with
// one inner error per problem.
func stepFailure(code, name string, inner ...stepError) *stepError {
	title := strings.TrimPrefix(name, name[:strings.IndexByte(name, '-')+1])
	return &stepError{ErrorCode: code, Error: title, ErrorMs: title, InnerError: inner}
}

// innerError is one problem of a failed step.
func innerError(code, property, path, msg string) stepError {
	e := stepError{ErrorCode: code, Error: msg, ErrorMs: msg}
	if property != "" {
		e.PropertyName = &property
	}
	if path != "" {
		e.PropertyPath = &path
	}
	return e
}

// verdict is the outcome of one document's validation.
type verdict struct {
	core, signature, taxpayer, references, duplicate *stepError
}

// steps lists every step in the authority's order.
func (v verdict) steps() []validationStep {
	out := []validationStep{{Name: stepStructure, Status: statusValid}}
	for _, s := range []struct {
		name string
		err  *stepError
	}{
		{stepCoreFields, v.core},
		{stepDuplicate, v.duplicate},
		{stepTaxpayer, v.taxpayer},
		{stepReferences, v.references},
		{stepSignature, v.signature},
	} {
		st := validationStep{Name: s.name, Status: statusValid}
		if s.err != nil {
			st.Status, st.Error = statusInvalid, s.err
		}
		out = append(out, st)
	}
	return out
}

// validExceptDuplicate reports whether every step but the duplicate check passed.
func (v verdict) validExceptDuplicate() bool {
	return v.core == nil && v.signature == nil && v.taxpayer == nil && v.references == nil
}

func (v verdict) valid() bool { return v.validExceptDuplicate() && v.duplicate == nil }

// checkCoreFields applies the time rules: the issue date and time must be
// readable, not in the future and at most 72 hours old.
func checkCoreFields(d docInfo, now time.Time) (issued *time.Time, fail *stepError) {
	t, ok := issueTime(d)
	switch {
	case !ok:
		return nil, stepFailure("Error02", stepCoreFields, innerError("CF320", "IssueDate",
			"Invoice.IssueDate", "Issuance date and time must be YYYY-MM-DD and HH:MM:SSZ (UTC)"))
	case t.After(now):
		return &t, stepFailure("Error02", stepCoreFields, innerError("CF322", "IssueDate",
			"Invoice.IssueDate", "Document issuance date and time is in the future"))
	case t.Before(now.Add(-maxIssueAge)):
		return &t, stepFailure("Error02", stepCoreFields, innerError("CF321", "IssueDate",
			"Invoice.IssueDate", "Issuance date time value of the document is too old and cannot be submitted"))
	}
	return &t, nil
}

// issueTime reads IssueDate and IssueTime (UTC; a missing zone is read as
// UTC).
func issueTime(d docInfo) (time.Time, bool) {
	tm := strings.TrimSpace(d.IssueTime)
	if !strings.HasSuffix(tm, "Z") && !strings.ContainsAny(tm, "+-") {
		tm += "Z"
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(d.IssueDate)+"T"+tm)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// checkSignature runs the signature verifier on signed versions (1.1, 1.3)
// and judges the signing certificate (judgeCertificate). XML documents go
// to the XML verifier; without one they pass unchecked.
func (s *Server) checkSignature(d docInfo, raw []byte, isXML bool, j *certJudge) *stepError {
	verify := s.verify
	if isXML {
		verify = s.verifyXML
	}
	if verify == nil || (d.Version != "1.1" && d.Version != "1.3") {
		return nil
	}
	var inner []stepError
	if err := verify(raw); err != nil {
		// dsig.Verify tells which check failed (DS320, DS322, ...); any
		// other error is DS300.
		code, msg := "DS300", err.Error()
		var ve *dsig.VerifyError
		if errors.As(err, &ve) && ve.Code != "" {
			code = ve.Code
			if _, signed := readSignature(raw, isXML); !signed && code == dsig.CodeMalformed {
				// No signature block at all: the authority's DS301.
				code, msg = "DS301", "Signature not found."
			}
		}
		inner = append(inner, innerError(code, "Signature", certPath, msg))
	}
	if j != nil {
		if si, ok := readSignature(raw, isXML); ok {
			inner = append(inner, judgeCertificate(d, si, *j)...)
		}
	}
	if inner == nil {
		return nil
	}
	return stepFailure("Error21", stepSignature, inner...)
}

const refPath = "Invoice.BillingReference.InvoiceDocumentReference.UUID"

// maxReferences bounds the originals one document may reference.
const maxReferences = 100

// checkReferences checks the originals a document references: each must be
// known, Valid now, and issued by the same issuer; a note must reference at
// least one original (or "NA"). It returns the known references.
func (s *Server) checkReferences(ctx context.Context, tx *sql.Tx, d docInfo, now time.Time) (known []string, fail *stepError, err error) {
	var inner []stepError
	if d.IsNote && len(d.References) == 0 && !d.HasNA {
		inner = append(inner, innerError("RD304", "UUID", refPath,
			"A credit, debit or refund note must reference its original document (or NA)"))
	}
	if len(d.References) > maxReferences {
		return nil, stepFailure("Error06", stepReferences, innerError("RD305", "UUID", refPath,
			"A document may reference at most "+itoa(maxReferences)+" documents")), nil
	}
	issuerTIN, _ := d.issuer()
	for _, ref := range d.References {
		row := tx.QueryRowContext(ctx, `SELECT `+docColumns+` FROM sandbox_documents WHERE uuid = $1`+s.forUpdate(), ref)
		r, scanErr := scanDoc(row)
		if errors.Is(scanErr, sql.ErrNoRows) {
			inner = append(inner, innerError("RD301", "UUID", refPath, "Referenced document with UUID "+ref+" does not exist"))
			continue
		}
		if scanErr != nil {
			return nil, nil, fmt.Errorf("read referenced document: %w", scanErr)
		}
		known = append(known, ref)
		switch {
		case r.status(now) != statusValid:
			inner = append(inner, innerError("RD302", "UUID", refPath, "Referenced document with UUID "+ref+" is not valid"))
		case !strings.EqualFold(r.IssuerTIN, issuerTIN):
			inner = append(inner, innerError("RD303", "UUID", refPath, "Referenced document with UUID "+ref+" belongs to another issuer"))
		}
	}
	if inner != nil {
		fail = stepFailure("Error06", stepReferences, inner...)
	}
	return known, fail, nil
}

// duplicateKey is the DS302 key: type, code number, issue date and time and
// issuer TIN.
func duplicateKey(d docInfo) string {
	tin, _ := d.issuer()
	return sha256Hex([]byte(strings.Join([]string{d.TypeCode, d.ID, strings.TrimSpace(d.IssueDate),
		strings.TrimSpace(d.IssueTime), strings.ToUpper(tin)}, "\x1f")))
}

// checkDuplicate applies DS302. A document that passed every other step
// claims its key for two hours; any document whose key is held by an
// earlier document is a duplicate of it.
func checkDuplicate(ctx context.Context, tx *sql.Tx, d docInfo, uuid string, claim bool, now time.Time) (*stepError, error) {
	key, cutoff := duplicateKey(d), micros(now.Add(-duplicateDocumentWindow))
	if claim {
		rows, err := tx.QueryContext(ctx, `INSERT INTO sandbox_duplicate_keys (dup_key, uuid, received_at) VALUES ($1, $2, $3)
			ON CONFLICT (dup_key) DO UPDATE SET uuid = excluded.uuid, received_at = excluded.received_at
			WHERE sandbox_duplicate_keys.received_at < $4
			RETURNING uuid`, key, uuid, micros(now), cutoff)
		if err != nil {
			return nil, fmt.Errorf("claim duplicate key: %w", err)
		}
		claimed := rows.Next()
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, fmt.Errorf("claim duplicate key: %w", err)
		}
		if claimed {
			return nil, nil
		}
	}
	var earlier string
	err := tx.QueryRowContext(ctx, `SELECT uuid FROM sandbox_duplicate_keys WHERE dup_key = $1 AND received_at >= $2`, key, cutoff).Scan(&earlier)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read duplicate key: %w", err)
	}
	return stepFailure("Error03", stepDuplicate, innerError("DS302", "document", "document",
		"Duplicated submitted document with UUID "+uuid+" where the values of configured attributes match with values for the document with UUID: "+earlier)), nil
}

// readSignature reads a signed document's certificate particulars in its
// format.
func readSignature(raw []byte, isXML bool) (dsig.SignatureInfo, bool) {
	if isXML {
		return dsig.ReadSignatureXML(raw)
	}
	return dsig.ReadSignature(raw)
}

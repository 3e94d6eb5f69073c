package myinvois

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// The authority's submission limits.
const (
	// MaxDocuments is the most documents one submission carries.
	MaxDocuments = 100
	// MaxDocumentSize is the most bytes of one document (before base64).
	MaxDocumentSize = einvoice.MaxUBLBytes
	// MaxSubmissionSize is the most bytes of a submission's JSON body.
	MaxSubmissionSize = 5 << 20
)

// submissionOverhead is the JSON around the documents: {"documents":[]}.
const submissionOverhead = len(`{"documents":[]}`)

// The JSON of one document of a submission, around its variable parts:
// {"format":"JSON","document":"<base64>","documentHash":"<hex>","codeNumber":<JSON string>}.
const (
	docOpen = `{"format":"JSON","document":"`
	docHash = `","documentHash":"`
	docCode = `","codeNumber":`
	docEnd  = `}`
)

// appendDocument writes one document of a submission: its Body
// base64-encoded and hashed (lower-case hex SHA-256 of the exact bytes).
func appendDocument(buf *bytes.Buffer, d einvoice.OutgoingDocument) error {
	code, err := json.Marshal(d.CodeNumber)
	if err != nil {
		return fmt.Errorf("encoding the code number %q: %w", d.CodeNumber, err)
	}
	sum := sha256.Sum256(d.Body)
	buf.WriteString(docOpen)
	enc := base64.NewEncoder(base64.StdEncoding, buf)
	_, _ = enc.Write(d.Body) // a bytes.Buffer does not fail
	_ = enc.Close()
	buf.WriteString(docHash)
	buf.WriteString(hex.EncodeToString(sum[:]))
	buf.WriteString(docCode)
	buf.Write(code)
	buf.WriteString(docEnd)
	return nil
}

// encodedSize is how many bytes appendDocument writes for d.
func encodedSize(d einvoice.OutgoingDocument) (int, error) {
	code, err := json.Marshal(d.CodeNumber)
	if err != nil {
		return 0, fmt.Errorf("encoding the code number %q: %w", d.CodeNumber, err)
	}
	return len(docOpen) + base64.StdEncoding.EncodedLen(len(d.Body)) + len(docHash) + sha256.Size*2 +
		len(docCode) + len(code) + len(docEnd), nil
}

// Split groups documents, in order, into as few submissions as the
// authority's limits allow (each within MaxDocuments and MaxSubmissionSize).
// It fails with ErrTooLarge when a document is over MaxDocumentSize or cannot
// fit in a submission alone.
func Split(docs []einvoice.OutgoingDocument) ([][]einvoice.OutgoingDocument, error) {
	return split(docs)
}

// Split is the package function Split, for einvoice.AuthorityAPI.
func (c *Client) Split(docs []einvoice.OutgoingDocument) ([][]einvoice.OutgoingDocument, error) {
	return split(docs)
}

func split(docs []einvoice.OutgoingDocument) ([][]einvoice.OutgoingDocument, error) {
	var (
		groups [][]einvoice.OutgoingDocument
		cur    []einvoice.OutgoingDocument
		size   = submissionOverhead
	)
	for i, d := range docs {
		if err := checkDocument(i, d); err != nil {
			return nil, err
		}
		n, err := encodedSize(d)
		if err != nil {
			return nil, err
		}
		if submissionOverhead+n > MaxSubmissionSize {
			return nil, fmt.Errorf("document %d (%q): %d bytes encoded, alone over the %d bytes of a submission: %w", i, d.CodeNumber, n, MaxSubmissionSize, ErrTooLarge)
		}
		sep := 0
		if len(cur) > 0 {
			sep = 1
		}
		if len(cur) == MaxDocuments || size+sep+n > MaxSubmissionSize {
			groups = append(groups, cur)
			cur, size, sep = nil, submissionOverhead, 0
		}
		cur = append(cur, d)
		size += sep + n
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups, nil
}

func checkDocument(i int, d einvoice.OutgoingDocument) error {
	if len(d.Body) > MaxDocumentSize {
		return fmt.Errorf("document %d (%q): %d bytes, over the %d bytes a document may have: %w", i, d.CodeNumber, len(d.Body), MaxDocumentSize, ErrTooLarge)
	}
	return nil
}

// submissionBody encodes a submission, checking the authority's limits.
func submissionBody(docs []einvoice.OutgoingDocument) ([]byte, error) {
	if len(docs) == 0 {
		return nil, errors.New("no documents")
	}
	if len(docs) > MaxDocuments {
		return nil, fmt.Errorf("%d documents, over the %d of a submission: %w", len(docs), MaxDocuments, ErrTooLarge)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"documents":[`)
	for i, d := range docs {
		if err := checkDocument(i, d); err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := appendDocument(&buf, d); err != nil {
			return nil, err
		}
		if buf.Len() > MaxSubmissionSize {
			return nil, fmt.Errorf("over %d bytes from document %d on: %w", MaxSubmissionSize, i, ErrTooLarge)
		}
	}
	buf.WriteString(`]}`)
	body := buf.Bytes()
	if len(body) > MaxSubmissionSize {
		return nil, fmt.Errorf("%d bytes, over the %d of a submission: %w", len(body), MaxSubmissionSize, ErrTooLarge)
	}
	return body, nil
}

// submitAnswer is the authority's 202. The documentation spells
// submissionUID, the live service submissionUid: encoding/json matches keys
// without regard to case, so one field reads both.
type submitAnswer struct {
	SubmissionUID     string                      `json:"submissionUid"`
	AcceptedDocuments []einvoice.AcceptedDocument `json:"acceptedDocuments"`
	RejectedDocuments []struct {
		CodeNumber string    `json:"invoiceCodeNumber"`
		Error      wireError `json:"error"`
	} `json:"rejectedDocuments"`
}

// Submit sends documents in one submission: each as format JSON, its Body
// base64-encoded and hashed (lower-case hex SHA-256 of the exact bytes). The
// limits (MaxDocuments, MaxDocumentSize, MaxSubmissionSize) are checked
// first: over them, nothing is sent and the error wraps ErrTooLarge. A
// request payload the authority saw in the last 10 minutes is a CallError
// with Status 422 and Body.Code "DuplicateSubmission".
func (c *Client) Submit(ctx context.Context, cred einvoice.Credentials, docs []einvoice.OutgoingDocument) (einvoice.SubmitResult, error) {
	const op = "myinvois: submit"
	body, err := submissionBody(docs)
	if err != nil {
		return einvoice.SubmitResult{}, fmt.Errorf("%s: %w", op, err)
	}
	a, err := c.do(ctx, cred, request{
		endpoint:    EndpointSubmit,
		op:          op,
		method:      http.MethodPost,
		path:        "/api/v1.0/documentsubmissions/",
		body:        body,
		contentType: "application/json",
	})
	if err != nil {
		return einvoice.SubmitResult{}, err
	}
	var sa submitAnswer
	if err := decode(op, a, &sa); err != nil {
		return einvoice.SubmitResult{}, err
	}
	res := einvoice.SubmitResult{SubmissionUID: sa.SubmissionUID, Accepted: sa.AcceptedDocuments}
	for _, r := range sa.RejectedDocuments {
		res.Rejected = append(res.Rejected, einvoice.RejectedDocument{CodeNumber: r.CodeNumber, Error: r.Error.fold()})
	}
	return res, nil
}

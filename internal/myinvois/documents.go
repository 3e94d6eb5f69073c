package myinvois

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// detailsAnswer is Get Document Details: the document and its validation.
type detailsAnswer struct {
	wireDocState
	ValidationResults *struct {
		Status          string `json:"status"`
		ValidationSteps []struct {
			Name   string     `json:"name"`
			Status string     `json:"status"`
			Error  *wireError `json:"error"`
		} `json:"validationSteps"`
	} `json:"validationResults"`
}

// GetDocumentDetails returns a document's state; the errors of its Invalid
// validation steps are its Errors (Code errorCode, Message error, Target
// propertyName or else the step's name, PropertyPath, Details innerError; a
// step Invalid without an error gives "validation step failed").
func (c *Client) GetDocumentDetails(ctx context.Context, cred einvoice.Credentials, uuid string) (einvoice.DocumentState, error) {
	const op = "myinvois: get document details"
	var d detailsAnswer
	path := "/api/v1.0/documents/" + url.PathEscape(uuid) + "/details"
	if err := c.getJSON(ctx, cred, EndpointDocumentDetails, op, path, nil, &d); err != nil {
		return einvoice.DocumentState{}, err
	}
	s := c.state(ctx, d.wireDocState)
	if s.UUID == "" {
		s.UUID = uuid
	}
	if d.ValidationResults != nil {
		for _, step := range d.ValidationResults.ValidationSteps {
			if !strings.EqualFold(step.Status, "Invalid") {
				continue
			}
			if step.Error == nil {
				s.Errors = append(s.Errors, einvoice.AuthorityError{Target: step.Name, Message: "validation step failed"})
				continue
			}
			e := step.Error.fold()
			if e.Target == "" {
				e.Target = step.Name
			}
			if isEmpty(e) {
				continue
			}
			s.Errors = append(s.Errors, e)
		}
	}
	return s, nil
}

// searchWindow is the widest submission-date span Search accepts.
const searchWindow = 31 * 24 * time.Hour

// searchSlack widens the search back in time for the difference between our
// clock and the authority's.
const searchSlack = 5 * time.Minute

// findPages bounds how many pages of 100 FindDocuments reads for several
// code numbers (the search allows 12 calls a minute).
const findPages = 5

// FindDocuments searches the documents this client sent since a time (less
// five minutes, and at most 31 days back) and keeps those whose internalId is
// one of codeNumbers. One code number is one search on it (its first page:
// 100 documents, newest first); several read the window's submissions, up to
// five pages, newest first.
func (c *Client) FindDocuments(ctx context.Context, cred einvoice.Credentials, codeNumbers []string, since time.Time) ([]einvoice.DocumentState, error) {
	const op = "myinvois: search documents"
	want := map[string]bool{}
	for _, n := range codeNumbers {
		want[n] = true
	}
	if len(want) == 0 {
		return nil, nil
	}
	now := c.now()
	from := since.Add(-searchSlack)
	if from.Before(now.Add(-searchWindow)) {
		from = now.Add(-searchWindow)
	}
	if from.After(now) {
		from = now
	}
	q := url.Values{
		"submissionDateFrom": {formatTime(from)},
		"submissionDateTo":   {formatTime(now)},
		"invoiceDirection":   {"Sent"},
		"pageSize":           {"100"},
	}
	pages := findPages
	if len(want) == 1 {
		q.Set("searchQuery", codeNumbers[0])
		pages = 1
	}
	var found []einvoice.DocumentState
	for page := 1; page <= pages; page++ {
		q.Set("pageNo", strconv.Itoa(page))
		var ans struct {
			Result   []wireDocState `json:"result"`
			Metadata struct {
				TotalPages int `json:"totalPages"`
			} `json:"metadata"`
		}
		if err := c.getJSON(ctx, cred, EndpointSearch, op, "/api/v1.0/documents/search", q, &ans); err != nil {
			return nil, err
		}
		for _, w := range ans.Result {
			if want[w.InternalID] {
				found = append(found, c.state(ctx, w))
			}
		}
		if len(ans.Result) < 100 || page >= ans.Metadata.TotalPages {
			break
		}
	}
	return found, nil
}

// CancelDocument asks the authority to cancel a document. A 200 answer
// carrying an error block is a failure too: a CallError with Status 200 and
// that Body (not Temporary).
func (c *Client) CancelDocument(ctx context.Context, cred einvoice.Credentials, uuid, reason string) error {
	const op = "myinvois: cancel document"
	body, err := json.Marshal(struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}{"cancelled", reason})
	if err != nil {
		return fmt.Errorf("%s: encoding: %w", op, err)
	}
	a, err := c.do(ctx, cred, request{
		endpoint:    EndpointCancel,
		op:          op,
		method:      http.MethodPut,
		path:        "/api/v1.0/documents/state/" + url.PathEscape(uuid) + "/state",
		body:        body,
		contentType: "application/json",
	})
	if err != nil {
		return err
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(a.body, &env) == nil && lookup(env, "error") != nil {
		ce := callError(op, a, c.now())
		if isEmpty(ce.Body) && ce.Err == nil {
			ce.Body.Message = string(lookup(env, "error"))
		}
		return ce
	}
	return nil
}

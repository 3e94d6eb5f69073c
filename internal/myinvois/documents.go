package myinvois

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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

// CancelDocument asks the authority to cancel a document. A 200 answer
// carrying an error block is a failure too: a CallError with Status 200 and
// that Body (not Temporary).
func (c *Client) CancelDocument(ctx context.Context, cred einvoice.Credentials, uuid, reason string) error {
	return c.changeState(ctx, cred, "myinvois: cancel document", uuid, "cancelled", reason)
}

// changeState is PUT .../documents/state/{uuid}/state with status and
// reason (cancel and reject share the call and its rate limit); a 200
// answer carrying an error block is a failure.
func (c *Client) changeState(ctx context.Context, cred einvoice.Credentials, op, uuid, status, reason string) error {
	body, err := json.Marshal(struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}{status, reason})
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

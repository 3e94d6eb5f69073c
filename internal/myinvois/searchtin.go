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

// SearchTIN asks the authority for the one TIN of a taxpayer (reference
// myinvois.md 1.9, GET /api/v1.0/taxpayer/search/tin, 60 requests a minute):
// by name, or by id type and value, optionally with the name and fileType.
// A 404 answered by the API is einvoice.ErrTINNotFound; its 400 BadRequest
// (the criteria match more than one taxpayer) is einvoice.ErrTINAmbiguous;
// anything else is a CallError (400 BadArgument for malformed criteria).
// Answers are not cached: a search is made once per request of a buyer.
func (c *Client) SearchTIN(ctx context.Context, cred einvoice.Credentials, q einvoice.TINSearch) (string, error) {
	const op = "myinvois: search TIN"
	v := url.Values{}
	for _, p := range []struct{ name, value string }{
		{"idType", q.IDType}, {"idValue", q.IDValue}, {"taxpayerName", q.TaxpayerName}, {"fileType", q.FileType},
	} {
		if p.value != "" {
			v.Set(p.name, p.value)
		}
	}
	a, err := c.do(ctx, cred, request{
		endpoint: EndpointSearchTIN,
		op:       op,
		method:   http.MethodGet,
		path:     "/api/v1.0/taxpayer/search/tin",
		query:    v,
	})
	if ce, ok := einvoice.AsCallError(err); ok && ce.Err == nil {
		switch {
		case ce.Status == http.StatusNotFound:
			return "", fmt.Errorf("%s: %w", op, einvoice.ErrTINNotFound)
		case ce.Status == http.StatusBadRequest && strings.EqualFold(ce.Body.Code, "BadRequest"):
			return "", fmt.Errorf("%s: %w", op, einvoice.ErrTINAmbiguous)
		}
	}
	if err != nil {
		return "", err
	}
	var body struct {
		TIN string `json:"tin"`
	}
	if err := json.Unmarshal(a.body, &body); err != nil || strings.TrimSpace(body.TIN) == "" {
		return "", &einvoice.CallError{Op: op, Status: a.status, Err: fmt.Errorf("unexpected answer: %q", snippet(a.body))}
	}
	return strings.TrimSpace(body.TIN), nil
}

package myinvois

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestErrorAnswers pins how each error answer becomes a CallError.
func TestErrorAnswers(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
		want   einvoice.AuthorityError
		errHas string // in CallError.Err, for non-JSON answers
	}{{
		name:   "code/message shape",
		status: 400,
		body:   `{"error":{"code":"ValidationError","message":null,"target":null,"details":[{"code":"submission","target":"submission","message":"The authenticated TIN and documents TIN is not matching "}]}}`,
		want: einvoice.AuthorityError{Code: "ValidationError", Details: []einvoice.AuthorityError{
			{Code: "submission", Target: "submission", Message: "The authenticated TIN and documents TIN is not matching "}}},
	}, {
		name:   "errorCode shape with errorMs",
		status: 400,
		body: `{"error":{"propertyName":null,"propertyPath":null,"errorCode":"Error21","error":"Document Signature Validator","errorMs":"Pengesah",
			"innerError":[{"propertyName":"DigestValue","propertyPath":"Invoice.UBLExtensions","errorCode":"DS320","error":"digest mismatch","errorMs":"x","innerError":null}]}}`,
		want: einvoice.AuthorityError{Code: "Error21", Message: "Document Signature Validator", Details: []einvoice.AuthorityError{
			{Code: "DS320", Message: "digest mismatch", Target: "DigestValue", PropertyPath: "Invoice.UBLExtensions"}}},
	}, {
		name:   "errorCode shape with errorMS only",
		status: 403,
		body:   `{"error":{"errorCode":"Forbidden","errorMS":"Dilarang","target":"doc"}}`,
		want:   einvoice.AuthorityError{Code: "Forbidden", Message: "Dilarang", Target: "doc"},
	}, {
		name:   "numeric code",
		status: 400,
		body:   `{"error":{"code":3,"message":"Validation Error","details":{"code":null,"message":"ObjectExpected","propertyPath":"#/Invoice[0]"}}}`,
		want: einvoice.AuthorityError{Code: "3", Message: "Validation Error", Details: []einvoice.AuthorityError{
			{Message: "ObjectExpected", PropertyPath: "#/Invoice[0]"}}},
	}, {
		name:   "token endpoint shape",
		status: 400,
		body:   `{"error":"invalid_client","error_description":"bad secret","error_uri":null}`,
		want:   einvoice.AuthorityError{Code: "invalid_client", Message: "bad secret"},
	}, {
		name:   "problem details",
		status: 400,
		ctype:  "application/problem+json",
		body:   `{"type":"https://tools.ietf.org/html/rfc7231#section-6.5.1","title":"One or more validation errors occurred.","status":400,"errors":{"pageSize":["The value is invalid."]}}`,
		want: einvoice.AuthorityError{Message: "One or more validation errors occurred.", Details: []einvoice.AuthorityError{
			{Target: "pageSize", Message: "The value is invalid."}}},
	}, {
		name:   "gateway HTML page",
		status: 403,
		ctype:  "text/html",
		body:   "<html><head><title>403 Forbidden - Maintenance</title></head><body><h1>Sorry</h1></body></html>",
		errHas: "403 Forbidden - Maintenance",
	}, {
		name:   "plain text",
		status: 502,
		ctype:  "text/plain",
		body:   "Bad Gateway: upstream closed",
		errHas: "Bad Gateway: upstream closed",
	}, {
		name:   "empty 404",
		status: 404,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
				if tt.ctype == "" {
					tt.ctype = "application/json"
				}
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			c := New(Options{Logger: testLogger(t)})
			_, err := c.GetDocumentDetails(context.Background(), f.creds(), "X")
			ce := callErr(t, err)
			if ce.Status != tt.status {
				t.Errorf("Status = %d, want %d", ce.Status, tt.status)
			}
			if diff := cmp.Diff(tt.want, ce.Body); diff != "" {
				t.Errorf("Body (-want +got):\n%s", diff)
			}
			if tt.errHas != "" && (ce.Err == nil || !strings.Contains(ce.Err.Error(), tt.errHas)) {
				t.Errorf("Err = %v, want it to mention %q", ce.Err, tt.errHas)
			}
			if tt.errHas == "" && ce.Err != nil {
				t.Errorf("Err = %v, want none", ce.Err)
			}
			if !strings.HasPrefix(err.Error(), "myinvois: get document details: HTTP ") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestDecodeErrorBodyEdgeCases(t *testing.T) {
	tests := []struct {
		body string
		want einvoice.AuthorityError
		ok   bool
	}{
		{`{"errorCode":"BadArgument","error":"bad tin","propertyName":"tin"}`, einvoice.AuthorityError{Code: "BadArgument", Message: "bad tin", Target: "tin"}, true},
		{`{"code":"X","message":"bare"}`, einvoice.AuthorityError{Code: "X", Message: "bare"}, true},
		{`{"Error":{"Code":"Upper","Message":"case"}}`, einvoice.AuthorityError{Code: "Upper", Message: "case"}, true},
		{`{"error":null}`, einvoice.AuthorityError{}, false},
		{`{"uuid":"X","status":"Valid"}`, einvoice.AuthorityError{}, false},
		{`[1,2]`, einvoice.AuthorityError{}, false},
		{`not json`, einvoice.AuthorityError{}, false},
	}
	for _, tt := range tests {
		got, ok := decodeErrorBody([]byte(tt.body))
		if ok != tt.ok || !cmp.Equal(got, tt.want) {
			t.Errorf("%s: got %+v, %v; want %+v, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	clk := newClock()
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "42"}, 42 * time.Second},
		{"HTTP date", map[string]string{"Retry-After": clk.Now().Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"past date", map[string]string{"Retry-After": clk.Now().Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"rate limit reset", map[string]string{"X-Rate-Limit-Reset": clk.Now().Add(30 * time.Second).Format(time.RFC3339)}, 30 * time.Second},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				writeJSON(w, 429, map[string]any{"error": map[string]any{"code": "TooManyRequests", "message": "slow down"}})
			})
			c := New(Options{Now: clk.Now, Logger: testLogger(t)})
			_, err := c.GetDocumentDetails(context.Background(), f.creds(), "X")
			ce := callErr(t, err)
			if ce.Status != 429 || ce.RetryAfter != tt.want || ce.Body.Code != "TooManyRequests" || !ce.Temporary() {
				t.Errorf("CallError = %+v, want 429 with RetryAfter %v", ce, tt.want)
			}
		})
	}
}

func TestNoAnswerIsStatusZero(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		f := newFake(t)
		f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		})
		c := New(Options{Timeout: 200 * time.Millisecond, Logger: testLogger(t)})
		start := time.Now()
		_, err := c.GetDocumentDetails(context.Background(), f.creds(), "X")
		ce := callErr(t, err)
		if ce.Status != 0 || !ce.Unanswered() || !ce.Temporary() || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("CallError = %+v (%v)", ce, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v with a 200ms timeout", d)
		}
	})
	t.Run("context deadline", func(t *testing.T) {
		f := newFake(t)
		f.handle("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		})
		c := New(Options{Logger: testLogger(t)})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := c.GetDocumentDetails(ctx, f.creds(), "X")
		if ce := callErr(t, err); ce.Status != 0 || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("CallError = %+v", ce)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		c := New(Options{Logger: testLogger(t)})
		_, err = c.GetDocumentDetails(context.Background(), einvoice.Credentials{BaseURL: "http://" + addr, ClientID: "a", ClientSecret: "b"}, "X")
		ce := callErr(t, err)
		if ce.Status != 0 || !strings.Contains(ce.Op, "login") {
			t.Errorf("CallError = %+v", ce)
		}
	})
	t.Run("dropped connection", func(t *testing.T) {
		f := newFake(t)
		f.handle("POST /api/v1.0/documentsubmissions/", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		c := New(Options{Logger: testLogger(t)})
		_, err := c.Submit(context.Background(), f.creds(), []einvoice.OutgoingDocument{{CodeNumber: "INV-1", Body: []byte(`{}`)}})
		if ce := callErr(t, err); ce.Status != 0 || !ce.Unanswered() {
			t.Errorf("CallError = %+v", ce)
		}
	})
	t.Run("unreadable 2xx", func(t *testing.T) {
		f := newFake(t)
		f.handle("POST /api/v1.0/documentsubmissions/", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(202)
			_, _ = w.Write([]byte("<html>accepted</html>"))
		})
		c := New(Options{Logger: testLogger(t)})
		_, err := c.Submit(context.Background(), f.creds(), []einvoice.OutgoingDocument{{CodeNumber: "INV-1", Body: []byte(`{}`)}})
		if ce := callErr(t, err); ce.Status != 0 || !ce.Unanswered() {
			t.Errorf("CallError = %+v", ce)
		}
	})
}

func TestUnusableCredentials(t *testing.T) {
	c := New(Options{Logger: testLogger(t)})
	for _, cred := range []einvoice.Credentials{
		{BaseURL: "", ClientID: "a", ClientSecret: "b"},
		{BaseURL: "preprod-api.myinvois.hasil.gov.my", ClientID: "a", ClientSecret: "b"},
		{BaseURL: "ftp://x", ClientID: "a", ClientSecret: "b"},
		{BaseURL: "https://x", ClientID: "", ClientSecret: "b"},
		{BaseURL: "https://x", ClientID: "a", ClientSecret: ""},
	} {
		_, err := c.ValidateTIN(context.Background(), cred, "C1234567890", "BRN", "1")
		if !errors.Is(err, ErrCredentials) {
			t.Errorf("%+v: %v, want ErrCredentials", cred, err)
		}
	}
}

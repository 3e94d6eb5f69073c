package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestPanicBecomes500: a panicking handler answers a 500 in our shape that
// names the request id and nothing of the panic; the log has the details.
func TestPanicBecomes500(t *testing.T) {
	var logs bytes.Buffer
	s := New(Options{Service: &einvoice.Service{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	s.mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("secret internals: SELECT * FROM tenants") })
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/boom", nil)
	req.Header.Set("X-Request-Id", "req-42")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body errorBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || body.ErrorCode != einvoice.CodeInternal || !strings.Contains(body.Message, "req-42") || strings.Contains(body.Message, "SELECT") {
		t.Errorf("panic answered %d %+v", resp.StatusCode, body)
	}
	if !strings.Contains(logs.String(), "secret internals") || !strings.Contains(logs.String(), "req-42") {
		t.Errorf("the panic is not in the log with its request id:\n%s", logs.String())
	}
}

func TestPageRequest(t *testing.T) {
	for _, c := range []struct {
		query      string
		page, per  int
		wantFields []string
	}{
		{"", 1, 15, nil},
		{"per_page=100&page=3", 3, 100, nil},
		{"per_page=101", 1, 100, nil},
		{"per_page=99999999999999999999999", 1, 100, nil},
		{"page=99999999999999999999999", 2147483647, 15, nil},
		{"per_page=0", 0, 0, []string{"per_page"}},
		{"per_page=", 0, 0, []string{"per_page"}},
		{"per_page=1.5", 0, 0, []string{"per_page"}},
		{"per_page=abc&page=x", 0, 0, []string{"page", "per_page"}},
		{"page=0", 0, 0, []string{"page"}},
		{"page=-1", 0, 0, []string{"page"}},
	} {
		r := httptest.NewRequest("GET", "/x?"+c.query, nil)
		p, err := pageRequest(r)
		if c.wantFields == nil {
			if err != nil || p.Page != c.page || p.PerPage != c.per {
				t.Errorf("%q = %+v, %v; want page %d per %d", c.query, p, err, c.page, c.per)
			}
			continue
		}
		var e *einvoice.Error
		if !errors.As(err, &e) || e.Code != einvoice.CodeValidationFailed {
			t.Errorf("%q error = %v, want VALIDATION_FAILED", c.query, err)
			continue
		}
		if got := strings.Join(e.Fields.Paths(), ","); got != strings.Join(c.wantFields, ",") {
			t.Errorf("%q fields = %s, want %v", c.query, got, c.wantFields)
		}
	}
}

func TestNegotiate(t *testing.T) {
	json := []string{"application/json"}
	qr := []string{"application/json", "image/png", "image/jpeg"}
	for _, c := range []struct {
		accept string
		offers []string
		want   string
	}{
		{"", json, "application/json"}, {"*/*", json, "application/json"}, {"application/json", json, "application/json"},
		{"application/*", json, "application/json"}, {"text/html, application/json;q=0.9", json, "application/json"},
		{"text/html", json, ""}, {"image/png", json, ""}, {"application/json;q=0", json, ""}, {"garbage;;", json, ""},
		{"", qr, "application/json"}, {"*/*", qr, "application/json"}, {"image/png", qr, "image/png"},
		{"image/jpeg", qr, "image/jpeg"}, {"image/*", qr, "image/png"}, {"image/webp", qr, ""},
		{"image/png;q=0.5, image/jpeg", qr, "image/jpeg"}, {"application/json;q=0.1, image/png;q=0.9", qr, "image/png"},
		{"image/png;q=2", qr, ""},
		// The most specific range decides: an explicit q=0 refuses.
		{"*/*, application/json;q=0", json, ""}, {"*/*;q=0.1, application/pdf;q=0", []string{"application/pdf"}, ""},
		{"*/*, application/json;q=0", qr, "image/png"}, {"image/*;q=0.5, image/png;q=0", qr, "image/jpeg"},
		{"application/json;q=0, */*;q=0.2", qr, "image/png"},
	} {
		if got := negotiate(c.accept, c.offers); got != c.want {
			t.Errorf("negotiate(%q, %v) = %q, want %q", c.accept, c.offers, got, c.want)
		}
	}
}

// FuzzDecode: no body, however malformed, panics the decoder, and every
// refusal is an *einvoice.Error with a code the status table knows.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"name":"x","is_draft":true,"address":{"state":"14"}}`, `{"address":[]}`, `[]`, `{`, `"s"`, `{"id_type":null}`,
		`{"contact":{"phone":1e400}}`, "{\"name\":\"\xff\"}", `{"a":{"b":{"c":[1,2,{}]}}}`, `{"name":"x"}{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, dst := range []any{&partyRequest{}, &sellerRequest{}, &profileRequest{}} {
			r := httptest.NewRequest("POST", "/x", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			err := decode(r, maxBody, dst)
			if err == nil {
				if !json.Valid(body) {
					t.Fatalf("decode accepted invalid JSON %q", body)
				}
				continue
			}
			var e *einvoice.Error
			if !errors.As(err, &e) || statusOf[e.Code] == 0 || e.Code == einvoice.CodeInternal {
				t.Fatalf("decode(%q) = %v: not a client error", body, err)
			}
		}
	})
}

package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

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
// refusal is an *einvoice.Error with a code the status table knows. A body
// it accepts is valid JSON that reads one way only: no key twice in an
// object and no string that decoding changed (a lone surrogate becomes
// U+FFFD), both judged by a reference built on json.Decoder.Token; and it
// decodes to the same values as a plain json.Unmarshal.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"name":"x","is_draft":true,"address":{"state":"14"}}`, `{"address":[]}`, `[]`, `{`, `"s"`, `{"id_type":null}`,
		`{"contact":{"phone":1e400}}`, "{\"name\":\"\xff\"}", `{"a":{"b":{"c":[1,2,{}]}}}`, `{"name":"x"}{}`,
		`{"name":"a","name":"b"}`, `{"address":{"city":"a","c\u0069ty":"b"}}`, `{"invoiceLines":[{},{"unitCode":"a","unitCode":"a"}]}`,
		`{"id_type":"BRN","idType":"BRN"}`, `{"name":"\ud800"}`, `{"name":"\udc00\ud800"}`, `{"n\ud800":1}`,
		`{"name":"\ud83d\ude00"}`, `{"name":"\\ud800"}`, `{"name":"\ufffd"}`, "{\"name\":\"\uFFFD\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, newDst := range []func() any{
			func() any { return &partyRequest{} }, func() any { return &sellerRequest{} },
			func() any { return &profileRequest{} }, func() any { return &documentRequest{} },
		} {
			dst := newDst()
			r := httptest.NewRequest("POST", "/x", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			err := decode(r, maxBody, dst)
			if err == nil {
				if !json.Valid(body) {
					t.Fatalf("decode accepted invalid JSON %q", body)
				}
				if why := ambiguous(body); why != "" {
					t.Fatalf("decode accepted %q: %s", body, why)
				}
				plain := newDst()
				if err := json.Unmarshal(body, plain); err != nil || !reflect.DeepEqual(dst, plain) {
					t.Fatalf("decode(%q) = %+v, json.Unmarshal = %+v, %v", body, dst, plain, err)
				}
				continue
			}
			var e *einvoice.Error
			if !errors.As(err, &e) || web.Status(e.Code) == 0 || e.Code == einvoice.CodeInternal {
				t.Fatalf("decode(%q) = %v: not a client error", body, err)
			}
		}
	})
}

// ambiguous tells why body, valid JSON, reads more than one way: a key
// twice in one object, or a string with a U+FFFD that the body spells
// neither as such nor as \ufffd (decoding replaced something). It is the
// fuzzer's reference, written apart from scanRaw.
func ambiguous(body []byte) string {
	type level struct {
		object, wantKey bool
		keys            map[string]bool
	}
	var stack []*level
	spelled := bytes.ContainsRune(body, '\uFFFD') || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tk := tok.(type) {
		case json.Delim:
			if tk == '{' || tk == '[' {
				stack = append(stack, &level{object: tk == '{', wantKey: tk == '{', keys: map[string]bool{}})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if strings.ContainsRune(tk, '\uFFFD') && !spelled {
				return fmt.Sprintf("the string %q was changed by decoding", tk)
			}
			if top != nil && top.wantKey {
				if top.keys[tk] {
					return fmt.Sprintf("the key %q is given twice", tk)
				}
				top.keys[tk], top.wantKey = true, false
				continue
			}
		}
		// A value ended: the next string of an object is a key.
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
}

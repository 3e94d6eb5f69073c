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
)

// decodeBody runs decode on body as a POST with a JSON content type and
// the given extra headers (name, value pairs).
func decodeBody(body string, dst any, headers ...string) error {
	r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Add(headers[i], headers[i+1])
	}
	return decode(r, maxBody, dst)
}

// wantRefused checks that err is an *einvoice.Error with code and, when
// field is not empty, a problem at field.
func wantRefused(t *testing.T, what string, err error, code einvoice.Code, field string) {
	t.Helper()
	var e *einvoice.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: %v, want %s", what, err, code)
		return
	}
	if _, named := e.Fields[field]; field != "" && !named {
		t.Errorf("%s: errors %v, want %q named", what, e.Fields, field)
	}
}

// TestDecodeAmbiguousJSON: a key twice in one object, at any depth and
// however it is spelled, and a lone surrogate escape, in a key or a value,
// are 400 MALFORMED_JSON naming the path; a surrogate pair, an escaped
// backslash before "ud800", and the snake/camel twins are fine.
func TestDecodeAmbiguousJSON(t *testing.T) {
	many := `{"invoiceLines":[` + strings.Repeat(`{},`, 20) + `{"unitCode":"H87"}]`
	for i := range 20 {
		many += fmt.Sprintf(`,"k%d":1`, i)
	}
	many += `,"invoiceSerialNumber":"A","invoiceSerialNumber":"B"}`
	for _, c := range []struct {
		name, body string
		field      string // "" accepted
	}{
		{"top level", `{"buyerId":"a","buyerId":"b"}`, "buyerId"},
		{"same value twice", `{"buyerId":"a","buyerId":"a"}`, "buyerId"},
		{"nested object", `{"payment":{"paymentMode":"01","paymentTerms":"x","paymentMode":"03"}}`, "payment.paymentMode"},
		{"object in an array", `{"invoiceLines":[{"unitCode":"H87"},{"unitCode":"H87","quantity":1,"unitCode":"XBX"}]}`, "invoiceLines.1.unitCode"},
		{"deep", `{"invoiceLines":[{"invoiceLineTaxes":[{},{"taxType":"01","taxType":"02"}]}]}`, "invoiceLines.0.invoiceLineTaxes.1.taxType"},
		{"escaped spelling", `{"buyerId":"a","buyer\u0049d":"b"}`, "buyerId"},
		{"in an unknown field", `{"extra":{"a":1,"a":2}}`, "extra.a"},
		{"after 20 other keys", many, "invoiceSerialNumber"},
		{"after arrays and empty objects", `{"invoiceLines":[{},[],"x"],"currencyCode":"MYR","x":[{"y":{}},"currencyCode"],"currencyCode":"USD"}`, "currencyCode"},
		{"lone high surrogate", `{"invoiceSerialNumber":"A\ud800"}`, "invoiceSerialNumber"},
		{"lone low surrogate", `{"invoiceSerialNumber":"\udc00A"}`, "invoiceSerialNumber"},
		{"high then not low", `{"invoiceSerialNumber":"\ud83d\u0041"}`, "invoiceSerialNumber"},
		{"high then high", `{"invoiceSerialNumber":"\ud83d\ud83d\ude00"}`, "invoiceSerialNumber"},
		{"upper-case hex", `{"invoiceSerialNumber":"\uDBFF"}`, "invoiceSerialNumber"},
		{"in an array", `{"invoiceLines":[{"classifications":["001","\udfff"]}]}`, "invoiceLines.0.classifications.1"},
		{"in a key", `{"n\ud800":"x"}`, `n\ud800`},
		{"surrogate pair", `{"invoiceSerialNumber":"\ud83d\ude00"}`, ""},
		{"escaped backslash", `{"invoiceSerialNumber":"\\ud800"}`, ""},
		{"no duplicates across objects", `{"payment":{"paymentMode":"01"},"delivery":{"recipientName":"x"},"invoiceLines":[{"unitCode":"H87"},{"unitCode":"H87"}]}`, ""},
	} {
		var d documentRequest
		err := decodeBody(c.body, &d)
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %s refused: %v", c.name, c.body, err)
			}
			continue
		}
		wantRefused(t, c.name, err, einvoice.CodeMalformedJSON, c.field)
	}

	var d documentRequest
	if err := decodeBody(`{"invoiceSerialNumber":"\ud83d\ude00 \\ud800"}`, &d); err != nil || d.InvoiceSerialNumber != "\U0001F600 \\ud800" {
		t.Errorf("pair and escaped backslash: %q %v", d.InvoiceSerialNumber, err)
	}
	// The buyers' twins are distinct keys: the same value in both is fine.
	var p partyRequest
	if err := decodeBody(`{"id_type":"BRN","idType":"BRN"}`, &p); err != nil {
		t.Errorf("twins: %v", err)
	}
	// Many duplicates: the answer stays bounded.
	body := `{"a":1` + strings.Repeat(`,"a":1`, 5000) + `}`
	var e *einvoice.Error
	if err := decodeBody(body, &p); !errors.As(err, &e) || e.Code != einvoice.CodeMalformedJSON || len(e.Fields["a"]) > maxFieldErrors {
		t.Errorf("5,000 duplicates: %v", err)
	}
}

// TestDecodeContentEncoding: a body with a content coding other than
// identity is a 415, whatever the body.
func TestDecodeContentEncoding(t *testing.T) {
	for _, c := range []struct {
		codings []string
		ok      bool
	}{
		{nil, true},
		{[]string{"identity"}, true},
		{[]string{"IDENTITY"}, true},
		{[]string{"gzip"}, false},
		{[]string{"identity, gzip"}, false},
		{[]string{"identity", "br"}, false},
		{[]string{"x-unknown"}, false},
	} {
		var h []string
		for _, v := range c.codings {
			h = append(h, "Content-Encoding", v)
		}
		var p partyRequest
		err := decodeBody(`{"name":"x"}`, &p, h...)
		if c.ok && err != nil {
			t.Errorf("Content-Encoding %q: %v", c.codings, err)
		}
		if !c.ok {
			wantRefused(t, fmt.Sprintf("Content-Encoding %q", c.codings), err, einvoice.CodeUnsupportedMedia, "")
		}
	}
}

// TestResponsesAcceptedBack: every field of a resource's response, filled
// at every depth, is accepted back by its request type (DECISIONS 1 and 12:
// what a GET returns, PUT takes back), while an unknown field is still
// refused. A request type that is not tied to its response (see echoed)
// fails here.
func TestResponsesAcceptedBack(t *testing.T) {
	for _, c := range []struct {
		name string
		req  func() any
	}{
		{"buyer", func() any { return &partyRequest{} }},
		{"on-behalf seller", func() any { return &sellerRequest{} }},
		{"profile", func() any { return &profileRequest{} }},
		{"document", func() any { return &documentRequest{} }},
	} {
		e, ok := c.req().(echoed)
		if !ok {
			t.Errorf("%s: the request type does not name its response", c.name)
			continue
		}
		resp := reflect.New(reflect.TypeOf(e.echo())).Elem()
		fill(resp, 0)
		body, err := json.Marshal(resp.Interface())
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeBody(string(body), c.req()); err != nil {
			t.Errorf("%s: its own response refused: %v\n%s", c.name, err, body)
		}
		var obj map[string]any
		_ = json.Unmarshal(body, &obj)
		obj["notAField"] = 1
		more, _ := json.Marshal(obj)
		wantRefused(t, c.name+" with an unknown field", decodeBody(string(more), c.req()), einvoice.CodeValidationFailed, "notAField")
	}
}

// fill sets every exported field of v, at every depth, to a non-zero value
// (pointers allocated, one element in slices and maps); types that write
// their own JSON keep their zero value.
func fill(v reflect.Value, depth int) {
	if depth > 10 || reflect.PointerTo(v.Type()).Implements(marshalerType) {
		return
	}
	if v.Kind() == reflect.Struct { // an embedded struct of an unexported type is not settable, its fields are
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() || f.Anonymous {
				fill(v.Field(i), depth+1)
			}
		}
		return
	}
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), depth+1)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		el := reflect.New(v.Type().Elem()).Elem()
		fill(el, depth+1)
		m.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), el)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	}
}

// BenchmarkDecodeDocument decodes a document of 1,000 lines (about 400 kB).
func BenchmarkDecodeDocument(b *testing.B) {
	line := `{"classifications":["001"],"productDescription":"USB-C cable \ud83d\ude00","quantity":1,"unitCode":"H87","unitPrice":9.42,"invoiceLineTaxes":[{"taxType":"01","taxRate":6}]}`
	body := `{"buyerId":"x","invoiceSerialNumber":"A-1","currencyCode":"MYR","autoCalculate":true,"invoiceLines":[` +
		strings.TrimSuffix(strings.Repeat(line+",", 1000), ",") + `],"payment":{"paymentMode":"01"}}`
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var d documentRequest
		r := httptest.NewRequest("POST", "/x", bytes.NewReader([]byte(body)))
		r.Header.Set("Content-Type", "application/json")
		if err := decode(r, maxBody, &d); err != nil {
			b.Fatal(err)
		}
	}
}

package apidoctest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// recorder is a testing.TB that keeps the failures Check reports instead of
// failing the test.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

const (
	buyerID  = "01960f4e-8a8c-7b3e-9d2a-3c4b5d6e7f80"
	tenantID = "01960f4e-0000-7000-8000-000000000001"
	ts       = "2025-04-01T08:30:00.123456Z"
)

var buyer = `{"id":"` + buyerID + `","name":"Syarikat Contoh Sdn Bhd","tin":"C12345678901","idType":"BRN",
	"idValue":"201901234567","sstRegistrationNumber":"NA","isDraft":false,"isReady":false,
	"readinessErrors":{"tin":["the authority does not know this TIN"]},
	"address":{"line1":"1 Jalan Contoh","line2":"","line3":"","city":"Kuala Lumpur","state":"14","postCode":"50000","countryCode":"MYS"},
	"contact":{"phone":"+60123456789","email":"","name":"","fax":""},
	"createdAt":"` + ts + `","updatedAt":"` + ts + `"}`

var seller = strings.Replace(buyer, `"isDraft"`, `"msicCode":"46510","businessActivityDescription":"Wholesale of computers",
	"tourismTaxRegistrationNumber":"NA","isDraft"`, 1)

var profile = `{"id":"` + tenantID + `","name":"Demo","tin":"","idType":"","idValue":"","sstRegistrationNumber":"",
	"tourismTaxRegistrationNumber":"","msicCode":"","businessActivityDescription":"",
	"address":{"line1":"","line2":"","line3":"","city":"","state":"","postCode":"","countryCode":""},
	"contact":{"phone":"","email":"","name":"","fax":""},"isReady":false,"readinessErrors":{"name":["is required"]},
	"authority":{"environment":"sandbox","mode":"taxpayer","onBehalfOf":"","clientId":"sandbox-client",
	"hasClientSecret":true,"hasSigningCertificate":false,"hasPkcs12":false},
	"createdAt":"` + ts + `","updatedAt":"` + ts + `"}`

func errorBody(code, msg string) string {
	return `{"success":false,"message":"` + msg + `","error_code":"` + code + `"}`
}

type canned struct {
	status      int
	contentType string
	header      map[string]string
	body        string
}

// exchange is one request the fake server answers, and whether Check must
// flag the answer.
type exchange struct {
	name         string
	method, path string
	reqBody      string
	answer       canned
	wantFlagged  bool
}

const jsonCT = "application/json; charset=utf-8"

var rl = map[string]string{"X-Request-Id": "req-1", "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59", "X-RateLimit-Reset": "1743496260"}

var exchanges = []exchange{
	{name: "list buyers", method: "GET", path: "/api/v1/buyers?per_page=15",
		answer: canned{200, jsonCT, rl, `{"success":true,"data":[` + buyer + `],"meta":{"page":1,"per_page":15,"total":1,"last_page":1}}`}},
	{name: "create buyer", method: "POST", path: "/api/v1/buyers", reqBody: `{"name":"x","isDraft":true}`,
		answer: canned{201, jsonCT, rl, `{"success":true,"data":` + buyer + `}`}},
	{name: "get buyer", method: "GET", path: "/api/v1/buyers/" + buyerID,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":` + buyer + `}`}},
	{name: "unknown buyer", method: "GET", path: "/api/v1/buyers/nope",
		answer: canned{404, jsonCT, rl, errorBody("BUYER_NOT_FOUND", `No buyer with id \"nope\".`)}},
	{name: "validation failed", method: "PUT", path: "/api/v1/buyers/" + buyerID, reqBody: `{"tin":"x"}`,
		answer: canned{422, jsonCT, rl, `{"success":false,"message":"The given data was invalid.","error_code":"VALIDATION_FAILED","errors":{"name":["is required"]}}`}},
	{name: "delete buyer", method: "DELETE", path: "/api/v1/buyers/" + buyerID,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":{"id":"` + buyerID + `","deleted":true}}`}},
	{name: "rate limited", method: "GET", path: "/api/v1/states",
		answer: canned{429, jsonCT, map[string]string{"Retry-After": "12", "X-RateLimit-Remaining": "0"}, errorBody("RATE_LIMIT_EXCEEDED", "Too many requests.")}},
	{name: "get seller", method: "GET", path: "/api/v1/on-behalf-sellers/" + buyerID,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":` + seller + `}`}},
	{name: "id types", method: "GET", path: "/api/v1/id-types",
		answer: canned{200, jsonCT, rl, `{"success":true,"data":[{"code":"BRN","name":"Business registration number"}]}`}},
	{name: "profile", method: "GET", path: "/api/v1/profile",
		answer: canned{200, jsonCT, rl, `{"success":true,"data":` + profile + `}`}},
	{name: "unauthorized", method: "GET", path: "/api/v1/profile",
		answer: canned{401, jsonCT, nil, errorBody("UNAUTHORIZED", "Unauthenticated.")}},
	{name: "healthz", method: "GET", path: "/healthz", answer: canned{200, "application/json", nil, `{"status":"ok"}`}},
	{name: "readyz down", method: "GET", path: "/readyz", answer: canned{503, "application/json", nil, `{"status":"unavailable","error":"database unreachable"}`}},
	{name: "metrics", method: "GET", path: "/metrics", answer: canned{200, "text/plain; version=0.0.4; charset=utf-8", nil, "# HELP up 1\nup 1\n"}},
	{name: "docs", method: "GET", path: "/docs", answer: canned{200, "text/html; charset=utf-8", nil, "<!DOCTYPE html><title>x</title>"}},
	{name: "openapi", method: "GET", path: "/openapi.json", answer: canned{200, "application/json", nil, `{"openapi":"3.1.0"}`}},
	{name: "unknown route", method: "GET", path: "/api/v1/nothing-here",
		answer: canned{404, jsonCT, nil, errorBody("NOT_FOUND", "No such route.")}},
	{name: "wrong method", method: "PATCH", path: "/api/v1/buyers",
		answer: canned{405, jsonCT, rl, errorBody("METHOD_NOT_ALLOWED", "Method not allowed.")}},
	{name: "HEAD is not checked", method: "HEAD", path: "/healthz", answer: canned{200, "application/json", nil, ""}},

	// Wrong answers.
	{name: "buyer without isReady", method: "GET", path: "/api/v1/buyers/" + buyerID, wantFlagged: true,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":` + strings.Replace(buyer, `"isReady":false,`, "", 1) + `}`}},
	{name: "amount-like number where a string is due", method: "GET", path: "/api/v1/buyers/" + buyerID, wantFlagged: true,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":` + strings.Replace(buyer, `"tin":"C12345678901"`, `"tin":12.30`, 1) + `}`}},
	{name: "timestamp not in UTC", method: "POST", path: "/api/v1/buyers", reqBody: `{}`, wantFlagged: true,
		answer: canned{201, jsonCT, rl, `{"success":true,"data":` + strings.ReplaceAll(buyer, ts, "2025-04-01T16:30:00+08:00") + `}`}},
	{name: "seller without its seller fields", method: "GET", path: "/api/v1/on-behalf-sellers/" + buyerID, wantFlagged: true,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":` + buyer + `}`}},
	{name: "undocumented field", method: "GET", path: "/api/v1/buyers/" + buyerID, wantFlagged: true,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":` + strings.Replace(buyer, `"isDraft"`, `"is_draft":false,"isDraft"`, 1) + `}`}},
	{name: "list without meta", method: "GET", path: "/api/v1/on-behalf-sellers", wantFlagged: true,
		answer: canned{200, jsonCT, rl, `{"success":true,"data":[]}`}},
	{name: "undocumented status", method: "GET", path: "/api/v1/currencies", wantFlagged: true,
		answer: canned{404, jsonCT, rl, errorBody("NOT_FOUND", "x")}},
	{name: "unknown error code", method: "DELETE", path: "/api/v1/on-behalf-sellers/" + buyerID, wantFlagged: true,
		answer: canned{409, jsonCT, rl, errorBody("SELLER_IN_USE", "x")}},
	{name: "plain-text error", method: "GET", path: "/api/v1/buyers/x", wantFlagged: true,
		answer: canned{404, "text/plain; charset=utf-8", nil, "404 page not found\n"}},
	{name: "rate-limit header not an integer", method: "GET", path: "/api/v1/countries", wantFlagged: true,
		answer: canned{200, jsonCT, map[string]string{"X-RateLimit-Remaining": "many"}, `{"success":true,"data":[]}`}},
	{name: "undocumented route answering 200", method: "GET", path: "/api/v1/secret", wantFlagged: true,
		answer: canned{200, jsonCT, nil, `{"success":true,"data":{}}`}},
	{name: "undocumented route with a non-Error body", method: "GET", path: "/api/v1/elsewhere", wantFlagged: true,
		answer: canned{404, jsonCT, nil, `{"error":"not found"}`}},
}

func TestCheckFlagsOnlyWrongAnswers(t *testing.T) {
	v := New(t)
	t.Run("exchanges", func(t *testing.T) { // returns when its parallel subtests are done
		for _, x := range exchanges {
			t.Run(x.name, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					a := x.answer
					if _, err := io.ReadAll(r.Body); err != nil {
						t.Errorf("reading request body: %v", err)
					}
					for k, val := range a.header {
						w.Header().Set(k, val)
					}
					if a.contentType != "" {
						w.Header().Set("Content-Type", a.contentType)
					}
					w.WriteHeader(a.status)
					io.WriteString(w, a.body)
				}))
				defer srv.Close()

				rec := &recorder{TB: t}
				client := &http.Client{Transport: v.Transport(rec, nil)}
				var body io.Reader
				if x.reqBody != "" {
					body = strings.NewReader(x.reqBody)
				}
				req, err := http.NewRequest(x.method, srv.URL+x.path, body)
				if err != nil {
					t.Fatal(err)
				}
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if x.method != "HEAD" && string(got) != x.answer.body {
					t.Errorf("the client read %q, want the body restored: %q", got, x.answer.body)
				}
				fails := rec.failures()
				if flagged := len(fails) > 0; flagged != x.wantFlagged {
					t.Errorf("flagged = %v, want %v; failures: %q", flagged, x.wantFlagged, fails)
				}
				for _, f := range fails {
					if !strings.Contains(f, x.method) || !strings.Contains(f, strings.SplitN(x.path, "?", 2)[0]) || !strings.Contains(f, fmt.Sprint(x.answer.status)) {
						t.Errorf("failure %q does not name the method, path and status", f)
					}
				}
			})
		}
	})

	seen := v.Seen()
	for _, want := range []string{"GET /api/v1/buyers", "POST /api/v1/buyers", "GET /api/v1/buyers/{id}", "GET /metrics", "GET /docs"} {
		if !slices.Contains(seen, want) {
			t.Errorf("Seen() = %q, want it to contain %q", seen, want)
		}
	}
	missing := v.Missing()
	for _, want := range []string{"GET /api/v1/classifications", "PUT /api/v1/profile"} {
		if !slices.Contains(missing, want) {
			t.Errorf("Missing() = %q, want it to contain %q", missing, want)
		}
	}
	for _, op := range seen {
		if slices.Contains(missing, op) {
			t.Errorf("%s is both seen and missing", op)
		}
	}
}

// TestCheckDirect calls Check without a transport, as a server-side
// middleware would, with a request whose URL has no host.
func TestCheckDirect(t *testing.T) {
	v := New(t)
	req := httptest.NewRequest("GET", "/api/v1/buyers/"+buyerID, nil)
	h := http.Header{"Content-Type": {"application/json"}}

	rec := &recorder{TB: t}
	v.Check(rec, req, 200, h, []byte(`{"success":true,"data":`+buyer+`}`))
	if f := rec.failures(); len(f) != 0 {
		t.Errorf("a correct answer was flagged: %q", f)
	}
	v.Check(rec, req, 200, h, []byte(`{"success":true,"data":{"id":"`+buyerID+`"}}`))
	if f := rec.failures(); len(f) != 1 {
		t.Errorf("an incomplete buyer gave %d failures, want 1: %q", len(f), f)
	}
	// The body was checked against the schema compiled once, not left to
	// kin-openapi (which compiles it again for every response).
	if s, ok := v.compiled.Load("/paths/~1api~1v1~1buyers~1{id}/get/responses/200/content/application~1json/schema"); !ok || s.(*jsonschema.Schema) == nil {
		t.Errorf("the buyer's schema was not compiled for the fast path: %v %v", s, ok)
	}
}

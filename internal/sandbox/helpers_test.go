package sandbox_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/secretbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// engine is a database engine the tests run on.
type engine struct {
	name     string
	postgres bool
	dsn      func(t *testing.T) string
}

var engines = []engine{
	{"sqlite", false, func(t *testing.T) string { return migrated.SQLite(t) }},
	{"postgres", true, func(t *testing.T) string { return migrated.Postgres(t, os.Getenv) }},
}

// t0 is the tests' starting time.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// clock is an injectable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is one test's database and clock.
type env struct {
	t        *testing.T
	dsn      string
	postgres bool
	clock    *clock
}

// eachEngine runs fn on a fresh database of every engine.
func eachEngine(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Helper()
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			fn(t, &env{t: t, dsn: eng.dsn(t), postgres: eng.postgres, clock: &clock{t: t0}})
		})
	}
}

// openStore opens (and migrates) a pool on the env's database; every call
// is another pool, like another replica.
func (e *env) openStore() *sqlstore.Store {
	e.t.Helper()
	box, err := secretbox.New(bytes.Repeat([]byte{7}, secretbox.KeySize))
	if err != nil {
		e.t.Fatal(err)
	}
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, e.dsn, box)
	if err != nil {
		e.t.Fatalf("Open: %v", err)
	}
	e.t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx, nil); err != nil {
		e.t.Fatalf("Migrate: %v", err)
	}
	return s
}

// server starts a sandbox over HTTP on a new pool of the env's database.
func (e *env) server(opts ...func(*sandbox.Options)) (*sandbox.Server, *httptest.Server) {
	e.t.Helper()
	st := e.openStore()
	o := sandbox.Options{DB: st.DB(), ReadDB: st.ReadDB(), Postgres: st.Engine() == sqlstore.Postgres, Now: e.clock.Now, Secrets: st.Secrets()}
	for _, f := range opts {
		f(&o)
	}
	sb := sandbox.New(o)
	hs := httptest.NewServer(sb)
	e.t.Cleanup(hs.Close)
	e.t.Cleanup(func() { registry.forget(hs.URL) })
	registry.serve(hs.URL, sb)
	return sb, hs
}

// intermediaryTIN is the own TIN of the clients tests log in with an
// onbehalfof header.
const intermediaryTIN = "C90000000010"

// registry knows the sandbox behind each test server, so that login can
// register its client (bound to a TIN) first, as `einvoice sandbox client
// add` does.
var registry = &clientRegistry{servers: map[string]*sandbox.Server{}, clients: map[string]sandbox.Client{}}

type clientRegistry struct {
	mu      sync.Mutex
	servers map[string]*sandbox.Server
	clients map[string]sandbox.Client // by base + " " + client id
}

func (g *clientRegistry) serve(base string, sb *sandbox.Server) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.servers[base] = sb
}

func (g *clientRegistry) forget(base string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.servers, base)
	for k := range g.clients {
		if strings.HasPrefix(k, base+" ") {
			delete(g.clients, k)
		}
	}
}

// ensure registers clientID (secret "secret-"+clientID) bound to tin ("":
// keep the TIN it has, or supplierTIN for a new client), adding the TIN of
// obo to those it represents.
func (g *clientRegistry) ensure(t *testing.T, base, clientID, tin, obo string) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	sb := g.servers[base]
	if sb == nil {
		return // a server the tests did not start through env.server
	}
	key := base + " " + clientID
	c, known := g.clients[key]
	if !known {
		c = sandbox.Client{ID: clientID, Secret: "secret-" + clientID, TIN: supplierTIN, IDType: "BRN", IDValue: "202001234567", Name: "Client " + clientID}
		if obo != "" {
			c.TIN = intermediaryTIN
		}
	}
	if tin != "" {
		c.TIN = tin
	}
	if obo != "" {
		oboTIN, _, _ := strings.Cut(obo, ":")
		if oboTIN != c.TIN && !slices.Contains(c.Represents, oboTIN) {
			c.Represents = append(c.Represents, oboTIN)
		}
	}
	if known && tin == "" && obo == "" {
		return
	}
	if err := sb.AddClient(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	g.clients[key] = c
}

// response is an HTTP answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as an object.
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body %q: %v", r.Body, err)
	}
	return m
}

// errorCode is the code of an {"error": {...}} body.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	e, _ := r.JSON(t)["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// client calls a sandbox as one logged-in client.
type client struct {
	t     *testing.T
	base  string
	token string
	hc    *http.Client
	// clientID and obo, when set, log in again on a 401 (tokens expire
	// when the tests' clock moves on by an hour).
	clientID, obo string
}

func newClient(t *testing.T, base string) *client {
	return &client{t: t, base: base, hc: &http.Client{Timeout: 30 * time.Second}}
}

// login gets a token for clientID (and onbehalfof when not ""), registering
// the client first: bound to supplierTIN, or as an intermediary (bound to
// intermediaryTIN) representing obo's TIN.
func login(t *testing.T, base, clientID, obo string) *client {
	t.Helper()
	registry.ensure(t, base, clientID, "", obo)
	return login1(t, base, clientID, obo)
}

// loginAs gets a token for clientID bound to tin.
func loginAs(t *testing.T, base, clientID, tin string) *client {
	t.Helper()
	registry.ensure(t, base, clientID, tin, "")
	return login1(t, base, clientID, "")
}

func login1(t *testing.T, base, clientID, obo string) *client {
	t.Helper()
	c := newClient(t, base)
	r := c.loginRaw(url.Values{"client_id": {clientID}, "client_secret": {"secret-" + clientID},
		"grant_type": {"client_credentials"}, "scope": {"InvoicingAPI"}}, obo)
	if r.Status != http.StatusOK {
		t.Fatalf("login %s: %d %s", clientID, r.Status, r.Body)
	}
	c.token, _ = r.JSON(t)["access_token"].(string)
	c.clientID, c.obo = clientID, obo
	return c
}

func (c *client) loginRaw(form url.Values, obo string) response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+"/connect/token", strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if obo != "" {
		req.Header.Set("onbehalfof", obo)
	}
	return c.send(req)
}

// do calls method path with a JSON body (raw when []byte).
func (c *client) do(method, path string, body any) response {
	c.t.Helper()
	r, err := c.try(method, path, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// try is do that returns transport errors.
func (c *client) try(method, path string, body any) (response, error) {
	c.t.Helper()
	r, err := c.try1(method, path, body)
	if err == nil && r.Status == http.StatusUnauthorized && c.clientID != "" {
		c.token = login1(c.t, c.base, c.clientID, c.obo).token
		return c.try1(method, path, body)
	}
	return r, err
}

func (c *client) try1(method, path string, body any) (response, error) {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{resp.StatusCode, resp.Header, b}, nil
}

func (c *client) send(req *http.Request) response {
	c.t.Helper()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}

// doc is a document to submit.
type doc struct {
	code string
	body []byte
}

// envelope is a submission body of docs (JSON format, correct hashes).
func envelope(docs ...doc) []byte {
	var list []map[string]string
	for _, d := range docs {
		h := sha256.Sum256(d.body)
		list = append(list, map[string]string{"format": "JSON", "document": base64.StdEncoding.EncodeToString(d.body),
			"documentHash": hex.EncodeToString(h[:]), "codeNumber": d.code})
	}
	b, _ := json.Marshal(map[string]any{"documents": list})
	return b
}

// submitResult is a decoded 202.
type submitResult struct {
	SubmissionUID *string `json:"submissionUid"`
	Accepted      []struct {
		UUID       string `json:"uuid"`
		CodeNumber string `json:"invoiceCodeNumber"`
	} `json:"acceptedDocuments"`
	Rejected []struct {
		CodeNumber string `json:"invoiceCodeNumber"`
		Error      struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Target  string `json:"target"`
			Details []struct {
				Code         string `json:"code"`
				Message      string `json:"message"`
				PropertyPath string `json:"propertyPath"`
			} `json:"details"`
		} `json:"error"`
	} `json:"rejectedDocuments"`
}

// submit posts docs and wants a 202.
func (c *client) submit(docs ...doc) submitResult {
	c.t.Helper()
	r := c.do(http.MethodPost, "/api/v1.0/documentsubmissions/", envelope(docs...))
	if r.Status != http.StatusAccepted {
		c.t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	var res submitResult
	if err := json.Unmarshal(r.Body, &res); err != nil {
		c.t.Fatal(err)
	}
	return res
}

// submitOne submits one document that must be accepted and returns its uuid.
func (c *client) submitOne(d doc) string {
	c.t.Helper()
	res := c.submit(d)
	if len(res.Accepted) != 1 {
		c.t.Fatalf("submit %s: accepted %+v, rejected %+v", d.code, res.Accepted, res.Rejected)
	}
	return res.Accepted[0].UUID
}

// details returns a document's details.
func (c *client) details(uuid string) map[string]any {
	c.t.Helper()
	r := c.do(http.MethodGet, "/api/v1.0/documents/"+uuid+"/details", nil)
	if r.Status != http.StatusOK {
		c.t.Fatalf("details %s: %d %s", uuid, r.Status, r.Body)
	}
	return r.JSON(c.t)
}

// status is a document's status.
func (c *client) status(uuid string) string {
	c.t.Helper()
	s, _ := c.details(uuid)["status"].(string)
	return s
}

// failedSteps lists "step/innerCode" of a document's failed steps.
func (c *client) failedSteps(uuid string) []string {
	c.t.Helper()
	vr, _ := c.details(uuid)["validationResults"].(map[string]any)
	steps, _ := vr["validationSteps"].([]any)
	var out []string
	for _, s := range steps {
		st, _ := s.(map[string]any)
		if st["status"] != "Invalid" {
			continue
		}
		e, _ := st["error"].(map[string]any)
		inner, _ := e["innerError"].([]any)
		for _, in := range inner {
			im, _ := in.(map[string]any)
			out = append(out, st["name"].(string)+"/"+im["errorCode"].(string))
		}
	}
	return out
}

// state changes a document's state.
func (c *client) state(uuid, status, reason string) response {
	c.t.Helper()
	return c.do(http.MethodPut, "/api/v1.0/documents/state/"+uuid+"/state", map[string]string{"status": status, "reason": reason})
}

// Documents.

const (
	supplierTIN = "C20000000010"
	buyerTIN    = "IG12345678901"
)

// invoiceOpts shape a generated document.
type invoiceOpts struct {
	code, typeCode, version string
	supplier, buyer         string
	issued                  time.Time
	refs                    []string
	note                    string
}

// invoice returns a small UBL JSON document.
func invoice(o invoiceOpts) doc {
	if o.typeCode == "" {
		o.typeCode = "01"
	}
	if o.version == "" {
		o.version = "1.0"
	}
	if o.supplier == "" {
		o.supplier = supplierTIN
		if o.typeCode >= "11" && o.buyer == "" {
			// Self-billed: the logged-in client (supplierTIN) is the buyer.
			o.supplier, o.buyer = buyerTIN, supplierTIN
		}
	}
	if o.buyer == "" {
		o.buyer = buyerTIN
	}
	leaf := func(v any, attrs ...string) []any {
		m := map[string]any{"_": v}
		for i := 0; i+1 < len(attrs); i += 2 {
			m[attrs[i]] = attrs[i+1]
		}
		return []any{m}
	}
	party := func(tin, name string) []any {
		return []any{map[string]any{"Party": []any{map[string]any{
			"PartyIdentification": []any{
				map[string]any{"ID": leaf(tin, "schemeID", "TIN")},
				map[string]any{"ID": leaf("202001234567", "schemeID", "BRN")},
			},
			"PartyLegalEntity": []any{map[string]any{"RegistrationName": leaf(name)}},
		}}}}
	}
	inv := map[string]any{
		"ID":                      leaf(o.code),
		"IssueDate":               leaf(o.issued.UTC().Format("2006-01-02")),
		"IssueTime":               leaf(o.issued.UTC().Format("15:04:05Z")),
		"InvoiceTypeCode":         leaf(o.typeCode, "listVersionID", o.version),
		"DocumentCurrencyCode":    leaf("MYR"),
		"AccountingSupplierParty": party(o.supplier, "Supplier Sdn. Bhd."),
		"AccountingCustomerParty": party(o.buyer, "Buyer Name"),
		"TaxTotal":                []any{map[string]any{"TaxAmount": leaf(json.Number("6.00"), "currencyID", "MYR")}},
		"LegalMonetaryTotal": []any{map[string]any{
			"LineExtensionAmount": leaf(json.Number("100.00"), "currencyID", "MYR"),
			"TaxExclusiveAmount":  leaf(json.Number("100.00"), "currencyID", "MYR"),
			"TaxInclusiveAmount":  leaf(json.Number("106.00"), "currencyID", "MYR"),
			"PayableAmount":       leaf(json.Number("106.00"), "currencyID", "MYR"),
		}},
		"InvoiceLine": []any{map[string]any{"ID": leaf("1"), "LineExtensionAmount": leaf(json.Number("100.00"), "currencyID", "MYR")}},
	}
	if o.note != "" {
		inv["Note"] = leaf(o.note)
	}
	if len(o.refs) > 0 {
		var refs []any
		for _, r := range o.refs {
			refs = append(refs, map[string]any{"ID": leaf("ORIG"), "UUID": leaf(r)})
		}
		inv["BillingReference"] = []any{map[string]any{"InvoiceDocumentReference": refs}}
	}
	return docOf(o.code, map[string]any{
		"_D":      "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
		"_A":      "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
		"_B":      "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
		"Invoice": []any{inv},
	})
}

func docOf(code string, root map[string]any) doc {
	b, err := json.Marshal(root)
	if err != nil {
		panic(err)
	}
	return doc{code: code, body: b}
}

// samplesDir holds the authority's official samples (read in place).
const samplesDir = "../../../shared/testdata/myinvois-samples"

// sample reads an official sample as a generic JSON tree, skipping the
// test when the samples are absent.
func sample(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(samplesDir, name))
	if os.IsNotExist(err) {
		t.Skipf("official samples not found in %s", samplesDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// patchSample sets a sample's ID, issue date and time, party TINs and the
// UUIDs of its original-document references, so that it can be submitted.
func patchSample(root map[string]any, code string, issued time.Time, supplier, buyer, ref string) doc {
	inv := root["Invoice"].([]any)[0].(map[string]any)
	setLeaf(inv, "ID", code)
	setLeaf(inv, "IssueDate", issued.UTC().Format("2006-01-02"))
	setLeaf(inv, "IssueTime", issued.UTC().Format("15:04:05Z"))
	setTIN(inv, "AccountingSupplierParty", supplier)
	setTIN(inv, "AccountingCustomerParty", buyer)
	setRecipientTIN(inv, buyer)
	if brs, ok := inv["BillingReference"].([]any); ok {
		for _, br := range brs {
			refs, _ := br.(map[string]any)["InvoiceDocumentReference"].([]any)
			for _, r := range refs {
				setLeaf(r.(map[string]any), "UUID", ref)
			}
		}
	}
	return docOf(code, root)
}

func setLeaf(obj map[string]any, key string, v any) {
	obj[key].([]any)[0].(map[string]any)["_"] = v
}

// setRecipientTIN sets the TIN of every shipping recipient
// (Delivery/DeliveryParty).
func setRecipientTIN(inv map[string]any, tin string) {
	dls, _ := inv["Delivery"].([]any)
	for _, dl := range dls {
		parties, _ := dl.(map[string]any)["DeliveryParty"].([]any)
		for _, p := range parties {
			pids, _ := p.(map[string]any)["PartyIdentification"].([]any)
			for _, pid := range pids {
				id := pid.(map[string]any)["ID"].([]any)[0].(map[string]any)
				if id["schemeID"] == "TIN" {
					id["_"] = tin
				}
			}
		}
	}
}

func setTIN(inv map[string]any, partyKey, tin string) {
	party := inv[partyKey].([]any)[0].(map[string]any)["Party"].([]any)[0].(map[string]any)
	for _, pid := range party["PartyIdentification"].([]any) {
		id := pid.(map[string]any)["ID"].([]any)[0].(map[string]any)
		if id["schemeID"] == "TIN" {
			id["_"] = tin
		}
	}
}

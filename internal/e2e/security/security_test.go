package security

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"

	"github.com/google/go-cmp/cmp"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/apidoc"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/servetest"
)

// The TestSecurity... tests answer the OWASP API Security Top 10 (2023), item
// by item; docs/security.md says what each one proves, what no test can
// prove, and lists the open findings, whose tests are skipped naming them.
// Operation lists come from the OpenAPI document, so that a new operation is
// covered (or the test says it has no case for it).

// secOp is one operation of the OpenAPI document.
type secOp struct {
	Method, Path string
	// Body is the request body's schema (its name under components.schemas),
	// "" when the operation takes no body.
	Body string
	// PerPage tells that the operation takes the per_page parameter.
	PerPage bool
}

func (o secOp) String() string { return o.Method + " " + o.Path }

// api tells an authenticated operation (under /api/v1).
func (o secOp) api() bool { return strings.HasPrefix(o.Path, "/api/v1/") }

func (o secOp) hasID() bool { return strings.Contains(o.Path, "{id}") }

// at is the operation's path with id in place of {id}.
func (o secOp) at(id string) string { return strings.ReplaceAll(o.Path, "{id}", id) }

// secOps reads every operation of the OpenAPI document, sorted.
func secOps(t *testing.T) []secOp {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(apidoc.JSON(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	var ops []secOp
	for path, item := range doc.Paths {
		for method, raw := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue // parameters, summary...
			}
			var op struct {
				RequestBody *struct {
					Content map[string]struct {
						Schema struct {
							Ref string `json:"$ref"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
				Parameters []struct {
					Ref  string `json:"$ref"`
					Name string `json:"name"`
				} `json:"parameters"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("openapi.json %s %s: %v", method, path, err)
			}
			o := secOp{Method: strings.ToUpper(method), Path: path}
			if op.RequestBody != nil {
				o.Body = "?"
				if c, ok := op.RequestBody.Content["application/json"]; ok {
					o.Body = strings.TrimPrefix(c.Schema.Ref, "#/components/schemas/")
				}
			}
			for _, p := range op.Parameters {
				if p.Name == "per_page" || strings.HasSuffix(p.Ref, "/PerPage") {
					o.PerPage = true
				}
			}
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].String() < ops[j].String() })
	if len(ops) < 20 {
		t.Fatalf("openapi.json has %d operations: not the service's document", len(ops))
	}
	return ops
}

// secIDResource tells what an {id} path names and the error code of its
// absence; ok is false for a path no case knows.
func secIDResource(path string) (resource, notFound string, ok bool) {
	switch {
	case strings.HasPrefix(path, "/api/v1/buyers/{id}"):
		return "buyer", "BUYER_NOT_FOUND", true
	case strings.HasPrefix(path, "/api/v1/on-behalf-sellers/{id}"):
		return "seller", "SELLER_NOT_FOUND", true
	case strings.HasPrefix(path, "/api/v1/invoices/{id}"), strings.HasPrefix(path, "/api/v1/documents/{id}/"):
		return "document", "DOCUMENT_NOT_FOUND", true
	case strings.HasPrefix(path, "/api/v1/webhooks/{id}"):
		return "webhook", "NOT_FOUND", true
	case strings.HasPrefix(path, "/api/v1/received-documents/{id}"):
		return "received", "RECEIVED_DOCUMENT_NOT_FOUND", true
	case strings.HasPrefix(path, "/api/v1/receipts/{id}"):
		return "receipt", "RECEIPT_NOT_FOUND", true
	case strings.HasPrefix(path, "/api/v1/consolidations/{id}"):
		return "consolidation", "CONSOLIDATION_NOT_FOUND", true
	case strings.HasPrefix(path, "/api/v1/mail/{id}"):
		return "mail", "NOT_FOUND", true
	}
	return "", "", false
}

// secOwned names objects of one tenant that request bodies refer to.
type secOwned struct{ buyer, seller, doc string }

var secSerials atomic.Int64

// secRequestBody returns a body for op that would succeed for the tenant owning
// o's objects, so that a refusal is the authorization's doing. It fails the
// test for a body schema no case knows.
func secRequestBody(t *testing.T, op secOp, o secOwned) any {
	t.Helper()
	serial := fmt.Sprintf("SEC-BODY-%d", secSerials.Add(1))
	switch op.Body {
	case "":
		return nil
	case "BuyerInput":
		return e2etest.SampleBuyer()
	case "OnBehalfSellerInput":
		return e2etest.SampleSeller()
	case "ProfileInput":
		p := e2etest.SampleProfile()
		p["name"] = "Changed by " + serial
		return p
	case "BulkRequest":
		return map[string]any{"document_ids": []string{o.doc}}
	case "CancelRequest", "RejectRequest":
		return map[string]any{"reason": "Security test"}
	case "ReceiptInput":
		return e2etest.ReceiptBody(serial)
	case "ConsolidationRequest":
		return map[string]any{"month": "2026-08"}
	case "ReceiptCreditNoteRequest":
		return map[string]any{"lines": []any{0}}
	case "ReceiptBulkRequest":
		return map[string]any{"receipts": []any{e2etest.ReceiptBody(serial)}}
	case "ReceiptInvoiceRequest":
		return map[string]any{"buyerId": o.buyer}
	case "DeliverRequest":
		return map[string]any{"to": []string{"sec@pembeli.example"}}
	case "MailTestRequest":
		return map[string]any{"to": "sec@pembeli.example", "language": "ms"}
	case "MailPreviewRequest":
		return map[string]any{}
	case "MailSettingsInput":
		return map[string]any{"enabled": true, "senderName": "Changed by " + serial, "replyTo": "", "language": "en"}
	case "WebhookInput", "WebhookUpdate":
		return map[string]any{"url": "https://hooks.example.com/" + serial, "events": []string{client.EventDocumentValid}}
	case "DocumentInput":
		info := einvoice.Kinds[0] // PUT /invoices/{id}: the documents of these tests are invoices
		for _, k := range einvoice.Kinds {
			if "/api/v1"+k.Path == op.Path {
				info = k
			}
		}
		body := e2etest.SingleLineBody(serial)
		switch {
		case info.SelfBilled:
			body["onBehalfSellerId"] = o.seller
		case info.Consolidated:
		default:
			body["buyerId"] = o.buyer
		}
		if info.Note {
			body["documentReferences"] = []any{map[string]any{"referenceNumber": "NA", "uuid": "NA"}}
			body["isPreEinvoicing"] = true
		}
		return body
	}
	t.Errorf("%s takes a %q body, and no case of secRequestBody makes one: add it", op, op.Body)
	return nil
}

// secRevokeKey revokes a key, found in `key list` by its prefix.
func secRevokeKey(t *testing.T, dsn, tenantID, key string) {
	t.Helper()
	_, out, _ := servetest.Run(t, dsn, "key", "list", "--tenant", tenantID)
	prefix := key[:len(einvoice.APIKeyPrefix)+8] + "..."
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == prefix {
			if code, _, errOut := servetest.Run(t, dsn, "key", "revoke", f[0]); code != 0 {
				t.Fatalf("key revoke: %s", errOut)
			}
			return
		}
	}
	t.Fatalf("key %s is not in the key list:\n%s", prefix, out)
}

// secFixture is a running service whose tenant A (the demo tenant) has a
// buyer, an on-behalf seller and documents in several states, set up with
// the typed client as an integrator would.
type secFixture struct {
	svc     *e2etest.Service
	a       *e2etest.RawClient // tenant A's key, for the requests no typed client sends
	api     *client.Client     // tenant A's key, typed
	tenantA string
	webhook string // a webhook of tenant A
	buyer   string
	seller  string
	draft   string // a draft invoice
	ready   string // validated, not submitted
	valid   string // submitted through the built-in sandbox, Valid
	// received is a received document of tenant A (planted in the database).
	received string
	// receipt is an open receipt of tenant A.
	receipt string
	// consolidation is a consolidation of tenant A (September 2026).
	consolidation string
	// mail is the message of the Valid invoice (kept in the mailbox).
	mail string
}

func newSecFixture(t *testing.T, dsn string, args ...string) *secFixture {
	t.Helper()
	svc := e2etest.StartService(t, dsn, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, args...)...)
	f := &secFixture{svc: svc, a: svc.Client(t, svc.DemoKey), api: svc.API(t, svc.DemoKey)}
	ctx := t.Context()
	prof, err := f.api.Profile.Update(ctx, e2etest.SecProfile(t), nil)
	f.tenantA = e2etest.Must(t, prof, err).ID
	buyer, err := f.api.Buyers.Create(ctx, secBuyer(t))
	f.buyer = e2etest.Must(t, buyer, err).ID
	seller, err := f.api.Sellers.Create(ctx, secSeller(t))
	f.seller = e2etest.Must(t, seller, err).ID
	draft, err := f.api.Documents.Create(ctx, secInvoice(t, "SEC-DRAFT-1", f.buyer))
	f.draft = e2etest.Must(t, draft, err).ID
	f.ready = secReadyInvoice(t, f.api, "SEC-READY-1", f.buyer)
	f.valid = secReadyInvoice(t, f.api, "SEC-VALID-1", f.buyer)
	secSubmitValid(t, f.api, f.valid)
	msgs, err := f.api.Mail.List(ctx, &client.MailListOptions{DocumentID: f.valid})
	if e2etest.Must(t, msgs, err); len(msgs.Items) != 1 {
		t.Fatalf("the Valid invoice has %d messages, want 1", len(msgs.Items))
	}
	f.mail = msgs.Items[0].ID
	hook, err := f.api.Webhooks.Create(ctx, &client.Webhook{URL: "https://hooks.example.com/sec-a", Events: []string{client.EventDocumentValid}})
	f.webhook = e2etest.Must(t, hook, err).ID
	f.received = e2etest.PlantReceived(t, dsn, f.tenantA, "SEC-RECEIVED-1")
	rc, err := f.api.Receipts.Create(ctx, e2etest.ReceiptInput("SEC-RECEIPT-1"))
	f.receipt = e2etest.Must(t, rc, err).ID
	sept := e2etest.ReceiptInput("SEC-CONS-1")
	sept.IssuedAt = sept.IssuedAt.AddDate(0, -1, 0)
	_, err = f.api.Receipts.Create(ctx, sept)
	e2etest.Must(t, f.receipt, err)
	cons, err := f.api.Consolidations.Create(ctx, "2026-09")
	f.consolidation = e2etest.Must(t, cons, err).ID
	// Its invoices go on to Valid in the background: wait, so that the
	// tests' snapshots of tenant A see nothing move but what they do.
	for _, d := range cons.Documents {
		e2etest.WaitStatusTyped(t, f.api, d.ID, client.StatusValid, time.Minute)
	}
	return f
}

func (f *secFixture) ids() []string {
	return []string{f.tenantA, f.buyer, f.seller, f.draft, f.ready, f.valid, f.webhook, f.received, f.receipt, f.consolidation, f.mail}
}

// id is the fixture's object a typed call of c acts on: its buyer or
// seller, or the document in the state the call would succeed on.
func (f *secFixture) id(c secCall) string {
	switch c.res {
	case "buyer":
		return f.buyer
	case "seller":
		return f.seller
	case "document":
		switch c.on {
		case client.StatusDraft:
			return f.draft
		case client.StatusReady:
			return f.ready
		}
		return f.valid
	}
	return ""
}

// secSnapshot is tenant A's objects as its own key reads them: the answers
// as received, and the typed client's values.
type secSnapshot struct {
	raw   map[string]string
	typed secState
}

// secState is tenant A's objects as the typed client reads them.
type secState struct {
	Profile             *client.Profile
	Buyer, Seller       *client.Party
	Draft, Ready, Valid *client.Document
	Buyers, Sellers     *client.Page[client.Party]
	Documents           *client.Page[client.Document]
}

func (f *secFixture) snapshot(t *testing.T) secSnapshot {
	t.Helper()
	out := secSnapshot{raw: map[string]string{}}
	for _, p := range []string{"/api/v1/profile", "/api/v1/buyers/" + f.buyer, "/api/v1/on-behalf-sellers/" + f.seller,
		"/api/v1/invoices/" + f.draft, "/api/v1/invoices/" + f.ready, "/api/v1/invoices/" + f.valid,
		"/api/v1/buyers?per_page=100", "/api/v1/on-behalf-sellers?per_page=100", "/api/v1/invoices?per_page=100",
		"/api/v1/receipts/" + f.receipt, "/api/v1/receipts?per_page=100"} {
		out.raw[p] = string(f.a.Do("GET", p, nil).Want(t, 200, "").Raw)
	}
	ctx, all, s := t.Context(), client.ListOptions{PerPage: 100}, &out.typed
	var errs [9]error
	s.Profile, errs[0] = f.api.Profile.Get(ctx)
	s.Buyer, errs[1] = f.api.Buyers.Get(ctx, f.buyer)
	s.Seller, errs[2] = f.api.Sellers.Get(ctx, f.seller)
	s.Draft, errs[3] = f.api.Documents.Get(ctx, f.draft)
	s.Ready, errs[4] = f.api.Documents.Get(ctx, f.ready)
	s.Valid, errs[5] = f.api.Documents.Get(ctx, f.valid)
	s.Buyers, errs[6] = f.api.Buyers.List(ctx, &client.PartyListOptions{ListOptions: all})
	s.Sellers, errs[7] = f.api.Sellers.List(ctx, &client.PartyListOptions{ListOptions: all})
	s.Documents, errs[8] = f.api.Documents.List(ctx, &client.DocumentListOptions{ListOptions: all})
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatalf("tenant A's objects, typed: %v", err)
	}
	return out
}

func secSameSnapshot(t *testing.T, what string, before, after secSnapshot) {
	t.Helper()
	for p, b := range before.raw {
		if after.raw[p] != b {
			t.Errorf("%s changed GET %s:\nbefore %s\nafter  %s", what, p, b, after.raw[p])
		}
	}
	if d := cmp.Diff(before.typed, after.typed); d != "" {
		t.Errorf("%s changed tenant A's objects as the typed client reads them (-before +after):\n%s", what, d)
	}
}

func secBuyer(t *testing.T) *client.Party {
	return e2etest.SecAs[client.Party](t, e2etest.SampleBuyer())
}
func secSeller(t *testing.T) *client.Party {
	return e2etest.SecAs[client.Party](t, e2etest.SampleSeller())
}

// secInvoice is singleLineBody to the buyer, for the typed client.
func secInvoice(t *testing.T, serial, buyer string) *client.Document {
	t.Helper()
	d := e2etest.SecAs[client.Document](t, e2etest.SingleLineBody(serial))
	d.BuyerID = buyer
	return d
}

// secReadyInvoice creates an invoice to the buyer and validates it, which
// must pass.
func secReadyInvoice(t *testing.T, c *client.Client, serial, buyer string) string {
	t.Helper()
	d, err := c.Documents.Create(t.Context(), secInvoice(t, serial, buyer))
	id := e2etest.Must(t, d, err).ID
	v, err := c.Documents.Validate(t.Context(), id)
	if e2etest.Must(t, v, err).ID != id || v.Status != client.StatusReady || !v.ValidationPassed || v.Message != e2etest.PassedMessage || v.Errors != nil || v.Problems != nil {
		t.Errorf("%s: validate = %+v, want ready and passed", serial, v)
	}
	return id
}

// secSubmitValid submits a ready document, which the authority accepts at
// once (200, not pending), and waits for its verdict, Valid.
func secSubmitValid(t *testing.T, c *client.Client, id string) {
	t.Helper()
	if sub, err := c.Documents.Submit(t.Context(), id); e2etest.Must(t, sub, err).ID != id || sub.Pending {
		t.Errorf("submit %s = %+v, want accepted at once", id, sub)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := c.Documents.Status(t.Context(), id)
		if e2etest.Must(t, st, err).Status == client.StatusValid {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s is %s after 20s, want Valid: %+v", id, st.Status, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// secWant is wantErr that also wants the error to carry the request id the
// service gave the answer (the id an integrator quotes).
func secWant(t *testing.T, err error, status int, code string) *client.Error {
	t.Helper()
	e := e2etest.WantErr(t, err, status, code)
	if e.StatusCode != 0 && (e.RequestID == "" || e.Message == "") {
		t.Errorf("%d %s: request id %q, message %q: want both", e.StatusCode, e.Code, e.RequestID, e.Message)
	}
	return e
}

// secNo5xx checks that a typed call was answered with a success or a
// client's error, never a 5xx nor no answer.
func secNo5xx(t *testing.T, what string, err error) {
	t.Helper()
	var e *client.Error
	switch {
	case err == nil:
	case !errors.As(err, &e):
		t.Errorf("%s: %v", what, err)
	case e.StatusCode >= 500:
		t.Errorf("%s: %d %s (request %s): %s", what, e.StatusCode, e.Code, e.RequestID, e.Body)
	}
}

// secCall is one operation of the typed client under /api/v1.
type secCall struct {
	name string
	// res is what its id names ("buyer", "seller", "document"), "" when
	// it takes none; on is the status of a document it would succeed on.
	res string
	on  client.Status
	// write: not a GET.
	write bool
	call  func(ctx context.Context, c *client.Client, id string) error
}

// secCalls lists every operation of the typed client under /api/v1, each
// with the body secRequestBody makes: one that would succeed for the tenant
// owning o's objects, so that a refusal is the authorization's doing.
func secCalls(t *testing.T, o secOwned) []secCall {
	t.Helper()
	body := func(method, path, schema string) map[string]any {
		b, _ := secRequestBody(t, secOp{Method: method, Path: path, Body: schema}, o).(map[string]any)
		return b
	}
	profile := e2etest.SecAs[client.Profile](t, body("PUT", "/api/v1/profile", "ProfileInput"))
	update := e2etest.SecAs[client.Document](t, body("PUT", "/api/v1/invoices/{id}", "DocumentInput"))
	calls := []secCall{
		{"Profile.Get", "", "", false, func(ctx context.Context, c *client.Client, _ string) error {
			_, err := c.Profile.Get(ctx)
			return err
		}},
		{"Profile.Update", "", "", true, func(ctx context.Context, c *client.Client, _ string) error {
			_, err := c.Profile.Update(ctx, profile, nil)
			return err
		}},
	}
	for _, p := range []struct {
		name, res string
		svc       func(*client.Client) *client.PartyService
		body      *client.Party
	}{
		{"Buyers", "buyer", func(c *client.Client) *client.PartyService { return c.Buyers }, secBuyer(t)},
		{"Sellers", "seller", func(c *client.Client) *client.PartyService { return c.Sellers }, secSeller(t)},
	} {
		calls = append(calls,
			secCall{p.name + ".Create", "", "", true, func(ctx context.Context, c *client.Client, _ string) error {
				_, err := p.svc(c).Create(ctx, p.body)
				return err
			}},
			secCall{p.name + ".List", "", "", false, func(ctx context.Context, c *client.Client, _ string) error {
				_, err := p.svc(c).List(ctx, nil)
				return err
			}},
			secCall{p.name + ".Get", p.res, "", false, func(ctx context.Context, c *client.Client, id string) error {
				_, err := p.svc(c).Get(ctx, id)
				return err
			}},
			secCall{p.name + ".Update", p.res, "", true, func(ctx context.Context, c *client.Client, id string) error {
				_, err := p.svc(c).Update(ctx, id, p.body)
				return err
			}},
			secCall{p.name + ".Delete", p.res, "", true, func(ctx context.Context, c *client.Client, id string) error {
				return p.svc(c).Delete(ctx, id)
			}})
	}
	for _, k := range einvoice.Kinds {
		d := e2etest.SecAs[client.Document](t, body("POST", "/api/v1"+k.Path, "DocumentInput"))
		d.Type = client.DocumentType(k.Kind)
		calls = append(calls, secCall{"Documents.Create " + string(k.Kind), "", "", true, func(ctx context.Context, c *client.Client, _ string) error {
			_, err := c.Documents.Create(ctx, d)
			return err
		}})
	}
	calls = append(calls,
		secCall{"Documents.List", "", "", false, func(ctx context.Context, c *client.Client, _ string) error {
			_, err := c.Documents.List(ctx, nil)
			return err
		}},
		secCall{"Documents.SubmitBulk", "", "", true, func(ctx context.Context, c *client.Client, _ string) error {
			_, err := c.Documents.SubmitBulk(ctx, []string{o.doc})
			return err
		}},
		secCall{"Documents.Get", "document", client.StatusValid, false, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.Get(ctx, id)
			return err
		}},
		secCall{"Documents.Update", "document", client.StatusDraft, true, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.Update(ctx, id, update)
			return err
		}},
		secCall{"Documents.Delete", "document", client.StatusDraft, true, func(ctx context.Context, c *client.Client, id string) error {
			return c.Documents.Delete(ctx, id)
		}},
		secCall{"Documents.Validate", "document", client.StatusDraft, true, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.Validate(ctx, id)
			return err
		}},
		secCall{"Documents.Submit", "document", client.StatusReady, true, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.Submit(ctx, id)
			return err
		}},
		secCall{"Documents.Status", "document", client.StatusValid, false, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.Status(ctx, id)
			return err
		}},
		secCall{"Documents.Cancel", "document", client.StatusValid, true, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.Cancel(ctx, id, "Security test")
			return err
		}},
		secCall{"Documents.UBL", "document", client.StatusValid, false, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.UBL(ctx, id)
			return err
		}},
		secCall{"Documents.QR", "document", client.StatusValid, false, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.QR(ctx, id, 0)
			return err
		}},
		secCall{"Documents.QRImage", "document", client.StatusValid, false, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.QRImage(ctx, id, client.PNG, 0)
			return err
		}},
		secCall{"Documents.PDF", "document", client.StatusValid, false, func(ctx context.Context, c *client.Client, id string) error {
			_, err := c.Documents.PDF(ctx, id)
			return err
		}})
	for name, list := range map[string]func(*client.CodeService, context.Context) ([]client.Code, error){
		"Classifications": (*client.CodeService).Classifications, "Countries": (*client.CodeService).Countries,
		"Currencies": (*client.CodeService).Currencies, "IDTypes": (*client.CodeService).IDTypes,
		"PaymentModes": (*client.CodeService).PaymentModes, "States": (*client.CodeService).States,
		"TaxTypes": (*client.CodeService).TaxTypes, "UnitTypes": (*client.CodeService).UnitTypes,
	} {
		calls = append(calls, secCall{"Codes." + name, "", "", false, func(ctx context.Context, c *client.Client, _ string) error {
			_, err := list(c.Codes, ctx)
			return err
		}})
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].name < calls[j].name })
	return calls
}

// secAnswers is a transport that keeps the body of every answer, so that a
// test sees the wire under the typed client's values.
type secAnswers struct {
	next   http.RoundTripper
	mu     sync.Mutex
	bodies [][]byte
}

func (a *secAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	a.mu.Lock()
	a.bodies = append(a.bodies, body)
	a.mu.Unlock()
	return resp, nil
}

// last is the body of the last answer.
func (a *secAnswers) last() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.bodies) == 0 {
		return nil
	}
	return a.bodies[len(a.bodies)-1]
}

// secAPI is svc.api(t, key), the typed client checked against the OpenAPI
// document with retries off, that also keeps its answers as received.
func secAPI(t *testing.T, svc *e2etest.Service, key string) (*client.Client, *secAnswers) {
	rec := &secAnswers{next: e2etest.Contract(t).Transport(t, http.DefaultTransport)}
	return client.New(svc.URL, key, client.WithRetries(0), client.WithHTTPClient(&http.Client{Transport: rec, Timeout: 30 * time.Second})), rec
}

// TestSecurityObjectLevelAuthorization (API1): tenant B's key, given tenant
// A's ids, gets the resource's 404 from every {id} operation of the OpenAPI
// document and changes nothing; B's lists never show A's objects; bulk
// submit rejects A's ids as unknown; B's bodies cannot name A's parties.
func TestSecurityObjectLevelAuthorization(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newSecFixture(t, dsn)
		_, keyB := e2etest.SecTenant(t, dsn, "Other Tenant Sdn. Bhd.", "C1234567890")
		b, bAPI, ctx := f.svc.Client(t, keyB), f.svc.API(t, keyB), t.Context()
		// B is a working read-write tenant with objects of its own, which
		// its bodies name: were a check missing, B's requests would succeed.
		var mine secOwned
		buyer, err := bAPI.Buyers.Create(ctx, secBuyer(t))
		mine.buyer = e2etest.Must(t, buyer, err).ID
		seller, err := bAPI.Sellers.Create(ctx, secSeller(t))
		mine.seller = e2etest.Must(t, seller, err).ID
		own, err := bAPI.Documents.Create(ctx, secInvoice(t, "SEC-B-1", mine.buyer))
		mine.doc = e2etest.Must(t, own, err).ID
		if got, err := bAPI.Documents.Get(ctx, mine.doc); e2etest.Must(t, got, err).ID != mine.doc || got.InvoiceSerialNumber != "SEC-B-1" {
			t.Errorf("tenant B's own invoice: %+v", got)
		}

		before := f.snapshot(t)
		targets := map[string][]string{"buyer": {f.buyer}, "seller": {f.seller}, "document": {f.draft, f.ready, f.valid},
			"webhook": {f.webhook}, "received": {f.received}, "receipt": {f.receipt},
			"consolidation": {f.consolidation}, "mail": {f.mail}}
		calls := 0
		for _, op := range secOps(t) {
			if !op.hasID() {
				continue
			}
			res, notFound, ok := secIDResource(op.Path)
			if !ok {
				t.Errorf("%s takes an {id}, and no case of this test knows what it names: add it to secIDResource", op)
				continue
			}
			for _, id := range targets[res] {
				r := b.Do(op.Method, op.at(id), secRequestBody(t, op, mine))
				if r.Status != 404 || r.ErrorCode() != notFound {
					t.Errorf("tenant B: %s with A's %s %s = %d %q, want 404 %s: %.300s", op, res, id, r.Status, r.ErrorCode(), notFound, r.Raw)
				}
				calls++
			}
		}
		if calls < 20 {
			t.Errorf("only %d cross-tenant calls: the document's {id} operations were not found", calls)
		}
		// The same through the typed client: each of its operations on an
		// id, given A's, is the resource's 404, with the request's id.
		notFound := map[string]string{"buyer": client.CodeBuyerNotFound, "seller": client.CodeSellerNotFound, "document": client.CodeDocumentNotFound}
		typed, named := 0, map[string]string{f.buyer: "buyer", f.seller: "seller", f.draft: "draft", f.ready: "ready", f.valid: "Valid"}
		for _, c := range secCalls(t, mine) {
			if c.res == "" {
				continue
			}
			for _, id := range targets[c.res] {
				t.Run(c.name+" of A's "+named[id], func(t *testing.T) {
					secWant(t, c.call(t.Context(), bAPI, id), 404, notFound[c.res])
				})
				typed++
			}
		}
		if typed < 35 {
			t.Errorf("only %d typed cross-tenant calls", typed)
		}

		// Lists, searches and filters of B never show A's objects.
		lists := []string{"/api/v1/buyers?search=Buyer", "/api/v1/buyers?search=C20880050010",
			"/api/v1/on-behalf-sellers?search=IG21136626090", "/api/v1/invoices?search=SEC-",
			"/api/v1/invoices?status=draft", "/api/v1/invoices?status=ready", "/api/v1/invoices?status=Valid"}
		for _, op := range secOps(t) {
			if op.Method == "GET" && op.PerPage && op.api() && !op.hasID() {
				lists = append(lists, op.Path+"?per_page=100")
			}
		}
		for _, p := range lists {
			r := b.Do("GET", p, nil).Want(t, 200, "")
			if strings.HasPrefix(p, "/api/v1/audit-log?") {
				r = secWithoutOwnAttempts(t, r)
			}
			for _, id := range append(f.ids(), "SEC-DRAFT-1", "SEC-READY-1", "SEC-VALID-1") {
				if bytes.Contains(r.Raw, []byte(id)) {
					t.Errorf("tenant B: GET %s shows A's %s: %.300s", p, id, r.Raw)
				}
			}
		}
		// The same lists through the typed client, every page: B's own
		// objects and none of A's.
		aOwns := map[string]bool{"SEC-DRAFT-1": true, "SEC-READY-1": true, "SEC-VALID-1": true}
		for _, id := range f.ids() {
			aOwns[id] = true
		}
		seen := map[string]bool{}
		parties := func(what string, all iter.Seq2[client.Party, error]) {
			for p, err := range all {
				if err != nil {
					t.Fatalf("tenant B: %s: %v", what, err)
				}
				seen[p.ID] = true
				if aOwns[p.ID] {
					t.Errorf("tenant B: %s shows A's %s", what, p.ID)
				}
			}
		}
		documents := func(what string, opts *client.DocumentListOptions) {
			for d, err := range bAPI.Documents.All(ctx, opts) {
				if err != nil {
					t.Fatalf("tenant B: %s: %v", what, err)
				}
				seen[d.ID] = true
				if aOwns[d.ID] || aOwns[d.InvoiceSerialNumber] {
					t.Errorf("tenant B: %s shows A's %s %s", what, d.ID, d.InvoiceSerialNumber)
				}
			}
		}
		parties("Buyers.All", bAPI.Buyers.All(ctx, nil))
		parties("Buyers.All by name", bAPI.Buyers.All(ctx, &client.PartyListOptions{Search: "Buyer"}))
		parties("Buyers.All by TIN", bAPI.Buyers.All(ctx, &client.PartyListOptions{Search: "C20880050010"}))
		parties("Sellers.All", bAPI.Sellers.All(ctx, nil))
		parties("Sellers.All by TIN", bAPI.Sellers.All(ctx, &client.PartyListOptions{Search: "IG21136626090"}))
		documents("Documents.All", nil)
		documents("Documents.All by serial", &client.DocumentListOptions{Search: "SEC-"})
		for _, st := range []client.Status{client.StatusDraft, client.StatusReady, client.StatusValid} {
			documents("Documents.All "+string(st), &client.DocumentListOptions{Status: st})
		}
		if !seen[mine.buyer] || !seen[mine.seller] || !seen[mine.doc] {
			t.Errorf("tenant B's typed lists lack B's own buyer, seller or invoice: %v", seen)
		}

		// Bulk submit: A's ids are unknown to B, one by one; nothing is sent.
		aDocs := []string{f.draft, f.ready, f.valid}
		res, err := bAPI.Documents.SubmitBulk(ctx, aDocs)
		e2etest.Must(t, res, err)
		if len(res.Accepted) != 0 || len(res.Rejected) != 3 {
			t.Errorf("tenant B's bulk submit of A's ids: %+v, want all 3 rejected", res)
		}
		for _, r := range res.Rejected {
			if r.ErrorCode != client.CodeDocumentNotFound {
				t.Errorf("tenant B's bulk submit of A's id: %+v, want DOCUMENT_NOT_FOUND", r)
			}
			if !slices.Contains(aDocs, r.ID) {
				t.Errorf("tenant B's bulk submit of A's ids rejected %s, not one of them", r.ID)
			}
		}
		if len(res.Pending) != 0 {
			t.Errorf("tenant B's bulk submit left A's documents pending: %+v", res.Pending)
		}

		// B's bodies cannot name A's parties.
		inv := secInvoice(t, "SEC-B-2", f.buyer)
		_, err = bAPI.Documents.Create(ctx, inv)
		if e := secWant(t, err, 422, client.CodeValidationFailed); e.Fields["buyerId"] == nil {
			t.Errorf("A's buyer in B's invoice: %s", e.Body)
		}
		_, err = bAPI.Documents.Update(ctx, mine.doc, inv)
		if e := secWant(t, err, 422, client.CodeValidationFailed); e.Fields["buyerId"] == nil {
			t.Errorf("A's buyer in B's PUT: %s", e.Body)
		}
		sb := e2etest.SecAs[client.Document](t, e2etest.SingleLineBody("SEC-B-3"))
		sb.Type, sb.OnBehalfSellerID = client.TypeSelfBilledInvoice, f.seller
		_, err = bAPI.Documents.Create(ctx, sb)
		if e := secWant(t, err, 422, client.CodeValidationFailed); e.Fields["onBehalfSellerId"] == nil {
			t.Errorf("A's seller in B's self-billed invoice: %s", e.Body)
		}

		secSameSnapshot(t, "tenant B's requests", before, f.snapshot(t))
	})
}

// TestSecurityAuthentication (API2): every /api/v1 operation answers 401
// UNAUTHORIZED to a missing header, a wrong scheme, a malformed, unknown or
// revoked key, two Authorization headers, and a key in the query string; no key, client secret,
// private key or access token reaches the service's log (at debug level,
// through a profile update and a signed submission via the sandbox).
func TestSecurityAuthentication(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newSecFixture(t, dsn, "--key-cache-ttl", "0", "--log-level", "debug")
		ctx := t.Context()
		const clientSecret = "sec-client-secret-5b1f0c9e"
		cert, key := e2etest.SandboxCert(t, dsn, "Supplier's Name", e2etest.SampleSupplier().TIN)
		prof, err := f.api.Profile.Update(ctx, e2etest.SecProfile(t), &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer",
			ClientID: "sec-client-1", ClientSecret: clientSecret, CertificatePEM: cert, PrivateKeyPEM: key})
		if au := e2etest.Must(t, prof, err).Authority; au.ClientID != "sec-client-1" || !au.HasClientSecret || !au.HasSigningCertificate {
			t.Errorf("the profile's authority settings after setting them: %+v", au)
		}
		// A signed document, through a fresh login with that secret.
		signed := secReadyInvoice(t, f.api, "SEC-SIGNED-1", f.buyer)
		secSubmitValid(t, f.api, signed)

		// A key that worked, then revoked (the key cache is off: at once).
		revoked := e2etest.SecKey(t, dsn, f.tenantA)
		revokedAPI := f.svc.API(t, revoked)
		if p, err := revokedAPI.Profile.Get(ctx); e2etest.Must(t, p, err).ID != f.tenantA {
			t.Errorf("the new key reads the profile of %s, want tenant A's %s", p.ID, f.tenantA)
		}
		secRevokeKey(t, dsn, f.tenantA, revoked)
		_, err = revokedAPI.Profile.Get(ctx)
		secWant(t, err, 401, client.CodeUnauthorized)

		unknown := "eik_" + strings.Repeat("A", 43)
		headers := map[string][]string{
			"no Authorization":          nil,
			"Basic scheme":              {"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte("demo:"+f.svc.DemoKey))},
			"valid key, wrong scheme":   {"Authorization", "Token " + f.svc.DemoKey},
			"valid key, no scheme":      {"Authorization", f.svc.DemoKey},
			"Bearer without a key":      {"Authorization", "Bearer"},
			"Bearer, empty key":         {"Authorization", "Bearer "},
			"not a key":                 {"Authorization", "Bearer not-a-key"},
			"key prefix only":           {"Authorization", "Bearer eik_"},
			"valid key plus a byte":     {"Authorization", "Bearer " + f.svc.DemoKey + "x"},
			"valid key cut short":       {"Authorization", "Bearer " + f.svc.DemoKey[:len(f.svc.DemoKey)-1]},
			"over-long key":             {"Authorization", "Bearer " + strings.Repeat("eik_", 100)},
			"unknown well-formed key":   {"Authorization", "Bearer " + unknown},
			"revoked key":               {"Authorization", "Bearer " + revoked},
			"two keys":                  {"Authorization", "Bearer " + f.svc.DemoKey + " " + f.svc.DemoKey},
			"two headers, the same key": {"Authorization", "Bearer " + f.svc.DemoKey, "Authorization", "Bearer " + f.svc.DemoKey},
			"two headers, valid first":  {"Authorization", "Bearer " + f.svc.DemoKey, "Authorization", "Bearer " + unknown},
			"two headers, valid second": {"Authorization", "Bearer " + unknown, "Authorization", "Bearer " + f.svc.DemoKey},
			"two headers, one Basic":    {"Authorization", "Bearer " + f.svc.DemoKey, "Authorization", "Basic x"},
			"key in X-API-Key, no auth": {"X-API-Key", f.svc.DemoKey},
		}
		anon := f.svc.Client(t, "")
		ops := 0
		for _, op := range secOps(t) {
			if !op.api() {
				continue
			}
			ops++
			path := op.at(f.valid)
			if res, _, _ := secIDResource(op.Path); res == "buyer" {
				path = op.at(f.buyer)
			} else if res == "seller" {
				path = op.at(f.seller)
			}
			for name, h := range headers {
				r := anon.Do(op.Method, path, nil, h...)
				if r.Status != 401 || r.ErrorCode() != "UNAUTHORIZED" || r.Body["message"] != "Unauthenticated." {
					t.Errorf("%s, %s = %d %s, want 401 UNAUTHORIZED", op, name, r.Status, r.Raw)
				}
				if r.Header.Get("X-RateLimit-Limit") != "" {
					t.Errorf("%s, %s: a 401 carries a key's rate-limit headers", op, name)
				}
			}
		}
		if ops < 20 {
			t.Errorf("only %d /api/v1 operations in the document", ops)
		}
		// Every operation of the typed client, with no key, an unknown, a
		// revoked or a mangled one: 401, said as the raw requests got it.
		for name, k := range map[string]string{"no key": "", "unknown key": unknown, "revoked key": revoked, "valid key plus a byte": f.svc.DemoKey + "x"} {
			c := f.svc.API(t, k)
			for _, op := range secCalls(t, secOwned{buyer: f.buyer, seller: f.seller, doc: f.ready}) {
				t.Run(name+" "+op.name, func(t *testing.T) {
					if e := secWant(t, op.call(t.Context(), c, f.id(op)), 401, client.CodeUnauthorized); e.Message != "Unauthenticated." {
						t.Errorf("message %q, want Unauthenticated.", e.Message)
					}
				})
			}
		}
		for _, q := range []string{"api_key", "access_token", "key", "token"} {
			anon.Do("GET", "/api/v1/profile?"+q+"="+url.QueryEscape(f.svc.DemoKey), nil).Want(t, 401, "UNAUTHORIZED")
		}
		// The scheme's case does not matter (RFC 9110); the key still works.
		anon.Do("GET", "/api/v1/profile", nil, "Authorization", "bearer "+f.svc.DemoKey).Want(t, 200, "")

		log := f.svc.Stderr.String()
		if !strings.Contains(log, "myinvois call") || !strings.Contains(log, `route="POST /api/v1/documents/{id}/submit"`) {
			t.Fatalf("the debug log lacks the authority's calls or the submit: %.2000s", log)
		}
		keyLine := e2etest.PrivateKeyLine(key) // a line of the private key's base64
		secrets := map[string]string{"the demo key": f.svc.DemoKey, "the revoked key": revoked, "the unknown key": unknown,
			"an API key prefix": "eik_", "the client secret": clientSecret, "the private key": keyLine,
			"a PEM private key": "PRIVATE KEY", "an access token": "access_token", "a bearer token": "Bearer "}
		for what, s := range secrets {
			if strings.Contains(log, s) {
				i := strings.Index(log, s)
				t.Errorf("the service's log shows %s (%q): ...%s...", what, s, log[max(0, i-200):min(len(log), i+200)])
			}
		}
	})
}

// TestSecurityFunctionLevelAuthorization (API5): a read-only key gets 403
// FORBIDDEN from every operation of the OpenAPI document under /api/v1 that
// is not a GET (with bodies and ids that would succeed for a read-write key)
// and changes nothing; it gets 200 from every GET.
func TestSecurityFunctionLevelAuthorization(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newSecFixture(t, dsn)
		roKey := e2etest.SecKey(t, dsn, f.tenantA, "--read-only")
		ro, roAPI := f.svc.Client(t, roKey), f.svc.API(t, roKey)
		before := f.snapshot(t)
		// The documents a write key could act on: a draft to change, a
		// ready one to submit, a Valid one to cancel.
		docFor := map[string]string{"/api/v1/documents/{id}/submit": f.ready, "/api/v1/documents/{id}/cancel": f.valid}
		target := func(op secOp, doc string) string {
			if !op.hasID() {
				return op.Path
			}
			switch res, _, ok := secIDResource(op.Path); {
			case !ok:
				t.Errorf("%s takes an {id}, and no case of this test knows what it names: add it to secIDResource", op)
			case res == "buyer":
				return op.at(f.buyer)
			case res == "seller":
				return op.at(f.seller)
			case res == "webhook":
				return op.at(f.webhook)
			case res == "received":
				return op.at(f.received)
			case res == "receipt":
				return op.at(f.receipt)
			case res == "consolidation":
				return op.at(f.consolidation)
			case res == "mail":
				return op.at(f.mail)
			case docFor[op.Path] != "":
				return op.at(docFor[op.Path])
			}
			return op.at(doc)
		}
		var reads []secOp
		writes := 0
		for _, op := range secOps(t) {
			if !op.api() {
				continue
			}
			if op.Method == "GET" {
				reads = append(reads, op)
				continue
			}
			r := ro.Do(op.Method, target(op, f.draft), secRequestBody(t, op, secOwned{buyer: f.buyer, seller: f.seller, doc: f.ready}))
			if r.Status != 403 || r.ErrorCode() != "FORBIDDEN" {
				t.Errorf("read-only key: %s = %d %.300s, want 403 FORBIDDEN", op, r.Status, r.Raw)
			}
			writes++
		}
		// Every write of the typed client, on the object it would succeed
		// on: 403 FORBIDDEN.
		calls := secCalls(t, secOwned{buyer: f.buyer, seller: f.seller, doc: f.ready})
		typedWrites := 0
		for _, c := range calls {
			if c.write {
				t.Run(c.name, func(t *testing.T) { secWant(t, c.call(t.Context(), roAPI, f.id(c)), 403, client.CodeForbidden) })
				typedWrites++
			}
		}
		secSameSnapshot(t, "a read-only key's writes", before, f.snapshot(t))
		if writes < 15 || len(reads) < 10 {
			t.Errorf("%d write and %d read operations under /api/v1: not the service's document", writes, len(reads))
		}
		for _, op := range reads {
			want := 200
			if secReadWriteReads[op.String()] {
				want = 403
			}
			if r := ro.Do("GET", target(op, f.valid), nil); r.Status != want {
				t.Errorf("read-only key: %s = %d %.300s, want %d", op, r.Status, r.Raw, want)
			}
		}
		// Every read of the typed client succeeds.
		typedReads := 0
		for _, c := range calls {
			if !c.write {
				if err := c.call(t.Context(), roAPI, f.id(c)); err != nil {
					t.Errorf("read-only key: %s: %v", c.name, err)
				}
				typedReads++
			}
		}
		if typedWrites < 20 || typedReads < 15 {
			t.Errorf("%d write and %d read operations of the typed client", typedWrites, typedReads)
		}
	})
}

// secPKCS12 is a PKCS #12 bundle of a test certificate, in base64.
func secPKCS12(t *testing.T, certPEM, keyPEM, password string) string {
	t.Helper()
	cb, _ := pem.Decode([]byte(certPEM))
	kb, _ := pem.Decode([]byte(keyPEM))
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.ParsePKCS1PrivateKey(kb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	p12, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(p12)
}

// secTenantRows is every tenants row of the database as text.
func secTenantRows(t *testing.T, dsn string) string {
	t.Helper()
	s := servetest.Store(t, dsn)
	rows, err := s.DB().QueryContext(context.Background(), "SELECT * FROM tenants")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if bs, ok := v.([]byte); ok {
				b.Write(bs)
			} else {
				fmt.Fprint(&b, v)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestSecurityPropertyLevel (API3): what only the service sets (ids,
// statuses, timestamps, history, the authority's record, frozen parties,
// readiness, kinds and type codes, computed amounts) cannot be set by a
// client: sent in create and PUT bodies, it is ignored (DECISIONS 1 and 12),
// tinCheck included. Secrets are write-only and sealed at rest.
func TestSecurityPropertyLevel(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newSecFixture(t, dsn)
		a, ctx := f.a, t.Context()
		api, answers := secAPI(t, f.svc, f.svc.DemoKey)
		const forged = "01900000-0000-7000-8000-0000000000aa"
		const longAgo = "2001-01-01T00:00:00Z"
		longAgoT := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		valid := a.Do("GET", "/api/v1/invoices/"+f.valid, nil).Want(t, 200, "").Data()
		if valid["authority"] == nil || valid["frozen"] == nil || len(valid["history"].([]any)) < 4 {
			t.Fatalf("the Valid document lacks its authority record, frozen parties or history: %v", valid)
		}
		// The Valid document, sent back whole with every response-only field
		// forged: another kind, a status, ids, times, computed amounts.
		poisoned := func(serial string) map[string]any {
			raw, _ := json.Marshal(valid)
			var d map[string]any
			_ = json.Unmarshal(raw, &d)
			d["invoiceSerialNumber"] = serial
			d["id"], d["status"], d["type"], d["typeCode"] = forged, "Valid", "credit_note", "11"
			d["createdAt"], d["updatedAt"] = longAgo, longAgo
			d["subtotal"], d["totalPayableAmount"], d["totalTaxAmount"] = "999999.00", "0.01", "0.00"
			d["taxSubtotals"] = []any{map[string]any{"taxType": "01", "taxRate": 6, "taxableAmount": "1.00", "taxAmount": "1.00"}}
			d["invoiceLines"].([]any)[0].(map[string]any)["taxAmount"] = "999.00"
			d["invoiceLines"].([]any)[0].(map[string]any)["totalExcludingTax"] = "0.01"
			return d
		}
		check := func(what string, d map[string]any, id, createdAt string, events int) {
			t.Helper()
			if d["id"] != id || d["status"] != "draft" || d["type"] != "invoice" || d["typeCode"] != "01" {
				t.Errorf("%s: id %v status %v type %v typeCode %v: forged values were taken", what, d["id"], d["status"], d["type"], d["typeCode"])
			}
			if createdAt != "" && d["createdAt"] != createdAt || strings.HasPrefix(e2etest.Str(d["createdAt"]), "2001") || strings.HasPrefix(e2etest.Str(d["updatedAt"]), "2001") {
				t.Errorf("%s: createdAt %v updatedAt %v: forged times were taken", what, d["createdAt"], d["updatedAt"])
			}
			if d["authority"] != nil || d["frozen"] != nil {
				t.Errorf("%s: authority %v frozen %v: a client set the authority's record", what, d["authority"], d["frozen"])
			}
			if h, _ := d["history"].([]any); len(h) != events {
				t.Errorf("%s: history %v, want %d events of the service's own", what, d["history"], events)
			}
			for _, k := range []string{"subtotal", "totalPayableAmount", "totalTaxAmount", "taxSubtotals"} {
				if fmt.Sprint(d[k]) != fmt.Sprint(valid[k]) {
					t.Errorf("%s: %s = %v, want the computed %v", what, k, d[k], valid[k])
				}
			}
			l0, v0 := d["invoiceLines"].([]any)[0].(map[string]any), valid["invoiceLines"].([]any)[0].(map[string]any)
			if l0["taxAmount"] != v0["taxAmount"] || l0["totalExcludingTax"] != v0["totalExcludingTax"] {
				t.Errorf("%s: line amounts %v %v, want the computed %v %v", what, l0["taxAmount"], l0["totalExcludingTax"], v0["taxAmount"], v0["totalExcludingTax"])
			}
		}
		created := a.Do("POST", "/api/v1/invoices", poisoned("SEC-MASS-1")).Want(t, 201, "").Data()
		id := e2etest.Str(created["id"])
		if id == forged || id == f.valid {
			t.Fatalf("create took the forged id %s", id)
		}
		check("create", created, id, "", 1)
		check("create, stored", a.Do("GET", "/api/v1/invoices/"+id, nil).Want(t, 200, "").Data(), id, e2etest.Str(created["createdAt"]), 1)
		_, err := api.Documents.Get(ctx, forged)
		secWant(t, err, 404, client.CodeDocumentNotFound)

		draft := a.Do("GET", "/api/v1/invoices/"+f.draft, nil).Want(t, 200, "").Data()
		updated := a.Do("PUT", "/api/v1/invoices/"+f.draft, poisoned("SEC-DRAFT-1")).Want(t, 200, "").Data()
		check("PUT", updated, f.draft, e2etest.Str(draft["createdAt"]), 1)
		check("PUT, stored", a.Do("GET", "/api/v1/invoices/"+f.draft, nil).Want(t, 200, "").Data(), f.draft, e2etest.Str(draft["createdAt"]), 1)
		// A status sent does not skip validation.
		_, err = api.Documents.Submit(ctx, f.draft)
		secWant(t, err, 422, client.CodeDocumentNotReady)
		// A submitted document is not editable whatever the body claims.
		a.Do("PUT", "/api/v1/invoices/"+f.valid, poisoned("SEC-VALID-1")).Want(t, 409, "DOCUMENT_NOT_DRAFT")

		// The typed client's way to the same: a Document read back "may be
		// sent again as it is", the service's fields with it, forged or not.
		// It is a new draft all the same, and a Valid one stays as it is.
		validDoc, err := api.Documents.Get(ctx, f.valid)
		back := *e2etest.Must(t, validDoc, err)
		back.InvoiceSerialNumber = "SEC-MASS-2"
		back.ID, back.Status, back.TypeCode = forged, client.StatusValid, "11"
		back.CreatedAt, back.UpdatedAt = longAgoT, longAgoT
		back.Subtotal, back.TotalPayableAmount, back.TotalTaxAmount = "999999.00", "0.01", "0.00"
		made, err := api.Documents.Create(ctx, &back)
		madeID := e2etest.Must(t, made, err).ID
		stored, err := api.Documents.Get(ctx, madeID)
		for _, d := range []*client.Document{made, e2etest.Must(t, stored, err)} {
			if d.ID == forged || d.ID == f.valid || d.Status != client.StatusDraft || d.Type != client.TypeInvoice || d.TypeCode != "01" ||
				d.Authority != nil || d.Frozen != nil || len(d.History) != 1 || d.CreatedAt.Year() == 2001 || d.UpdatedAt.Year() == 2001 ||
				d.Subtotal != validDoc.Subtotal || d.TotalPayableAmount != validDoc.TotalPayableAmount || d.TotalTaxAmount != validDoc.TotalTaxAmount {
				t.Errorf("a Valid document read back and created again, its service fields forged: %+v", d)
			}
		}
		back.Status = client.StatusDraft
		_, err = api.Documents.Update(ctx, f.valid, &back)
		secWant(t, err, 409, client.CodeDocumentNotDraft)
		if d, err := api.Documents.Get(ctx, f.valid); e2etest.Must(t, d, err).Status != client.StatusValid || d.InvoiceSerialNumber != "SEC-VALID-1" {
			t.Errorf("a refused update changed the Valid document: %+v", d)
		}

		// Buyers and sellers: id, readiness and timestamps are ignored;
		// readiness is computed (this TIN is unknown to the sandbox).
		for _, p := range []struct {
			path, id string
			api      *client.PartyService
		}{{"/api/v1/buyers", f.buyer, api.Buyers}, {"/api/v1/on-behalf-sellers", f.seller, api.Sellers}} {
			body := e2etest.SampleSeller()
			if p.path == "/api/v1/buyers" {
				body = e2etest.SampleBuyer()
			}
			body["tin"] = "C99999999990"
			body["id"], body["isReady"], body["is_ready"], body["readinessErrors"] = forged, true, true, map[string]any{}
			body["createdAt"], body["updatedAt"] = longAgo, longAgo
			old := a.Do("GET", p.path+"/"+p.id, nil).Want(t, 200, "").Data()
			for _, r := range []struct {
				what string
				d    map[string]any
				id   string
			}{
				{"create", a.Do("POST", p.path, body).Want(t, 201, "").Data(), ""},
				{"PUT", a.Do("PUT", p.path+"/"+p.id, body).Want(t, 200, "").Data(), p.id},
			} {
				if r.d["id"] == forged || (r.id != "" && r.d["id"] != r.id) || r.d["isReady"] != false ||
					r.d["tinCheck"].(map[string]any)["status"] != "not_found" || strings.HasPrefix(e2etest.Str(r.d["createdAt"]), "2001") {
					t.Errorf("%s %s with forged fields: %v", r.what, p.path, r.d)
				}
				if r.what == "PUT" && r.d["createdAt"] != old["createdAt"] {
					t.Errorf("PUT %s changed createdAt: %v -> %v", p.path, old["createdAt"], r.d["createdAt"])
				}
			}
			// tinCheck is the authority's answer: a forged one is ignored.
			body["tinCheck"] = map[string]any{"status": "verified", "checkedAt": longAgo}
			for _, m := range []string{"POST", "PUT"} {
				path, status := p.path, 201
				if m == "PUT" {
					path, status = path+"/"+p.id, 200
				}
				if d := a.Do(m, path, body).Want(t, status, "").Data(); d["isReady"] != false || d["tinCheck"].(map[string]any)["status"] != "not_found" {
					t.Errorf("%s %s with a forged tinCheck: %v", m, path, d)
				}
			}
			got, err := p.api.Get(ctx, p.id)
			if e2etest.Must(t, got, err).TINCheck == nil || got.TINCheck.Status != client.TINNotFound {
				t.Errorf("%s: tinCheck %+v after a PUT with a forged one", p.path, got.TINCheck)
			}
			// The typed client's Party read back, its service fields forged,
			// sent again: created or updated, they are the service's own.
			back := *got
			back.ID, back.IsReady, back.ReadinessErrors = forged, true, nil
			back.TINCheck = &client.TINCheck{Status: client.TINVerified, CheckedAt: &longAgoT}
			back.CreatedAt, back.UpdatedAt = longAgoT, longAgoT
			created, err := p.api.Create(ctx, &back)
			updated, err2 := p.api.Update(ctx, p.id, &back)
			for _, r := range []struct {
				what string
				p    *client.Party
				id   string
			}{{"Create", e2etest.Must(t, created, err), ""}, {"Update", e2etest.Must(t, updated, err2), p.id}} {
				if r.p.ID == forged || (r.id != "" && r.p.ID != r.id) || r.p.IsReady || r.p.TINCheck == nil || r.p.TINCheck.Status != client.TINNotFound ||
					r.p.CreatedAt.Year() == 2001 || (r.id != "" && !r.p.CreatedAt.Equal(got.CreatedAt)) {
					t.Errorf("typed %s %s of a party read back with forged fields: %+v", r.what, p.path, r.p)
				}
			}
		}

		// The profile: id, readiness, timestamps and the has... flags are
		// ignored; secrets are write-only.
		cur := a.Do("GET", "/api/v1/profile", nil).Want(t, 200, "").Data()
		const clientSecret = "sec-profile-secret-77c1"
		cert, key := e2etest.SandboxCert(t, dsn, "Supplier's Name", e2etest.SampleSupplier().TIN)
		prof := e2etest.SampleProfile()
		prof["id"], prof["isReady"], prof["readinessErrors"] = forged, false, map[string]any{"name": []any{"forged"}}
		prof["createdAt"], prof["updatedAt"] = longAgo, longAgo
		prof["authority"] = map[string]any{"environment": "sandbox", "mode": "taxpayer", "clientId": "sec-client-2",
			"clientSecret": clientSecret, "certificatePem": cert, "privateKeyPem": key,
			"hasClientSecret": false, "hasSigningCertificate": false, "hasPkcs12": true}
		put := a.Do("PUT", "/api/v1/profile", prof).Want(t, 200, "")
		got := a.Do("GET", "/api/v1/profile", nil).Want(t, 200, "")
		for _, r := range []*e2etest.Response{put, got} {
			d := r.Data()
			au := d["authority"].(map[string]any)
			if d["id"] != f.tenantA || d["createdAt"] != cur["createdAt"] || d["isReady"] != true || len(d["readinessErrors"].(map[string]any)) != 0 ||
				au["hasClientSecret"] != true || au["hasSigningCertificate"] != true || au["hasPkcs12"] != false {
				t.Errorf("profile with forged fields: %s", r.Raw)
			}
		}
		keyLine := e2etest.PrivateKeyLine(key)
		secrets := []string{clientSecret, keyLine, "PRIVATE KEY", "BEGIN CERTIFICATE", `"clientSecret"`, `"privateKeyPem"`, `"certificatePem"`, `"pkcs12Base64"`, `"pkcs12Password"`}
		for _, r := range []*e2etest.Response{put, got} {
			for _, s := range secrets {
				if bytes.Contains(r.Raw, []byte(s)) {
					t.Errorf("the profile shows %q: %s", s, r.Raw)
				}
			}
		}
		// The same secrets set the typed client's way: the client.Profile
		// answered, and the answer under it, show them only as set.
		curCreated, err := time.Parse(time.RFC3339Nano, e2etest.Str(cur["createdAt"]))
		if err != nil {
			t.Fatalf("the profile's createdAt %v: %v", cur["createdAt"], err)
		}
		typedPut, err := api.Profile.Update(ctx, e2etest.SecProfile(t), &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer",
			ClientID: "sec-client-2", ClientSecret: clientSecret, CertificatePEM: cert, PrivateKeyPEM: key})
		putRaw := answers.last()
		typedGot, err2 := api.Profile.Get(ctx)
		gotRaw := answers.last()
		for _, r := range []struct {
			what string
			p    *client.Profile
			raw  []byte
		}{{"Profile.Update", e2etest.Must(t, typedPut, err), putRaw}, {"Profile.Get", e2etest.Must(t, typedGot, err2), gotRaw}} {
			au := r.p.Authority
			if r.p.ID != f.tenantA || !r.p.CreatedAt.Equal(curCreated) || !r.p.IsReady || len(r.p.ReadinessErrors) != 0 || au.ClientID != "sec-client-2" ||
				!au.HasClientSecret || !au.HasSigningCertificate || au.HasPKCS12 {
				t.Errorf("typed %s with secrets: %+v", r.what, r.p)
			}
			typed, _ := json.Marshal(r.p)
			for _, s := range secrets {
				if bytes.Contains(r.raw, []byte(s)) || bytes.Contains(typed, []byte(s)) {
					t.Errorf("typed %s shows %q: %s", r.what, s, r.raw)
				}
			}
		}
		// A PKCS #12 bundle and its password, on another tenant.
		tenantB, keyB := e2etest.SecTenant(t, dsn, "Bundle Sdn. Bhd.", "C1234567890")
		const p12Password = "sec-p12-password-31d9"
		bundle := secPKCS12(t, cert, key, p12Password)
		p12, err := base64.StdEncoding.DecodeString(bundle)
		if err != nil {
			t.Fatal(err)
		}
		b, bAnswers := secAPI(t, f.svc, keyB)
		putB, err := b.Profile.Update(ctx, e2etest.SecProfile(t), &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer",
			ClientID: "sec-client-3", PKCS12: p12, PKCS12Password: p12Password})
		putBRaw := bAnswers.last()
		gotB, err2 := b.Profile.Get(ctx)
		gotBRaw := bAnswers.last()
		for _, r := range []struct {
			p   *client.Profile
			raw []byte
		}{{e2etest.Must(t, putB, err), putBRaw}, {e2etest.Must(t, gotB, err2), gotBRaw}} {
			typed, _ := json.Marshal(r.p)
			if !r.p.Authority.HasPKCS12 || bytes.Contains(r.raw, []byte(bundle[100:160])) || bytes.Contains(r.raw, []byte(p12Password)) ||
				bytes.Contains(typed, []byte(bundle[100:160])) || bytes.Contains(typed, []byte(p12Password)) {
				t.Errorf("profile with a PKCS #12 bundle: %s", r.raw)
			}
		}
		// At rest, the secrets are sealed: the tenants' rows hold none of them.
		rows := secTenantRows(t, dsn)
		if !strings.Contains(rows, tenantB) {
			t.Fatalf("secTenantRows did not read the tenants")
		}
		for what, s := range map[string]string{"client secret": clientSecret, "private key": keyLine, "PKCS #12 password": p12Password,
			"PKCS #12 bundle": bundle[100:160]} {
			if strings.Contains(rows, s) {
				t.Errorf("the tenants table holds the %s in clear", what)
			}
		}
	})
}

// TestSecurityResourceLimits (API4): bodies over 1 MiB (10 MiB for bulk
// submit) are 413 on every operation that takes one; more than 1,000 lines,
// more than 100 bulk ids, a nesting deeper than 10,000 are refused; per_page
// is capped at 100 on every list.
func TestSecurityResourceLimits(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--rate-limit", "100000")
		c, api, ctx := svc.Client(t, svc.DemoKey), svc.API(t, svc.DemoKey), t.Context()
		b, err := api.Buyers.Create(ctx, e2etest.ReadyBuyer("Limits"))
		buyer := e2etest.Must(t, b, err).ID
		seller := e2etest.ReadyBuyer("Seller")
		seller.MSICCode, seller.BusinessActivityDescription = "46510", "Wholesale"
		s, err := api.Sellers.Create(ctx, seller)
		sellerID := e2etest.Must(t, s, err).ID
		doc := secInvoice(t, "SEC-LIMITS-1", buyer)
		d, err := api.Documents.Create(ctx, doc)
		draft := e2etest.Must(t, d, err).ID
		hook, err := api.Webhooks.Create(ctx, &client.Webhook{URL: "https://hooks.example.com/limits", Events: []string{client.EventDocumentValid}})
		hookID := e2etest.Must(t, hook, err).ID
		ids := map[string]string{"buyer": buyer, "seller": sellerID, "document": draft, "webhook": hookID, "received": e2etest.NewID(), "receipt": e2etest.NewID(),
			"consolidation": e2etest.NewID(), "mail": e2etest.NewID()}

		// A body just over the limit, valid JSON otherwise.
		over := func(limit int) []byte {
			return append(append([]byte(`{"name":"`), bytes.Repeat([]byte("a"), limit)...), `"}`...)
		}
		bodies := 0
		for _, op := range secOps(t) {
			if op.Body == "" {
				continue
			}
			limit := 1 << 20
			if op.Path == "/api/v1/documents/submit-bulk" || op.Path == "/api/v1/receipts/bulk" {
				limit = 10 << 20
			}
			path := op.Path
			if op.hasID() {
				res, _, _ := secIDResource(op.Path)
				path = op.at(ids[res])
			}
			c.Do(op.Method, path, over(limit)).Want(t, 413, "PAYLOAD_TOO_LARGE")
			bodies++
		}
		if bodies < 10 {
			t.Errorf("only %d operations with a body in the document", bodies)
		}

		lines := func(n int) []client.Line {
			ls := make([]client.Line, n)
			for i := range ls {
				ls[i] = *e2etest.SecAs[client.Line](t, e2etest.Line("1", "06", 0))
			}
			return ls
		}
		doc.Lines = lines(1001)
		doc.InvoiceSerialNumber = "SEC-LIMITS-2"
		_, err = api.Documents.Create(ctx, doc)
		if e := secWant(t, err, 422, client.CodeValidationFailed); e.Fields["invoiceLines"] == nil {
			t.Errorf("1,001 lines: %.300s", e.Body)
		}
		_, err = api.Documents.Update(ctx, draft, doc)
		if e := secWant(t, err, 422, client.CodeValidationFailed); e.Fields["invoiceLines"] == nil {
			t.Errorf("1,001 lines on PUT: %.300s", e.Body)
		}
		doc.Lines = lines(1000)
		if d, err := api.Documents.Create(ctx, doc); len(e2etest.Must(t, d, err).Lines) != 1000 {
			t.Errorf("1,000 lines: created with %d", len(d.Lines))
		}

		bulk := make([]string, 101)
		for i := range bulk {
			bulk[i] = fmt.Sprintf("01900000-0000-7000-8000-%012d", i)
		}
		_, err = api.Documents.SubmitBulk(ctx, bulk)
		if e := secWant(t, err, 422, client.CodeValidationFailed); e.Fields["document_ids"] == nil {
			t.Errorf("101 bulk ids: %s", e.Body)
		}
		deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
		c.Do("POST", "/api/v1/buyers", `{"name":`+deep+`}`).Want(t, 400, "MALFORMED_JSON")

		lists := 0
		for _, op := range secOps(t) {
			if op.Method != "GET" || !op.PerPage {
				continue
			}
			for _, pp := range []string{"101", "100000", "99999999999999999999999"} {
				r := c.Do("GET", op.at(hookID)+"?per_page="+pp, nil).Want(t, 200, "") // the one paged list under an id: deliveries
				if m, _ := r.Body["meta"].(map[string]any); m["per_page"] != float64(100) {
					t.Errorf("GET %s?per_page=%s: meta %v, want per_page 100", op.Path, pp, r.Body["meta"])
				}
			}
			lists++
		}
		if lists < 3 {
			t.Errorf("only %d paged lists in the document", lists)
		}
		// The typed client's lists, asked for more: pages of 100.
		all := func(pp int) client.ListOptions { return client.ListOptions{PerPage: pp} }
		for _, pp := range []int{101, 100000} {
			bp, err := api.Buyers.List(ctx, &client.PartyListOptions{ListOptions: all(pp)})
			sp, err2 := api.Sellers.List(ctx, &client.PartyListOptions{ListOptions: all(pp)})
			dp, err3 := api.Documents.List(ctx, &client.DocumentListOptions{ListOptions: all(pp)})
			for what, m := range map[string]client.Meta{"Buyers": e2etest.Must(t, bp, err).Meta, "Sellers": e2etest.Must(t, sp, err2).Meta, "Documents": e2etest.Must(t, dp, err3).Meta} {
				if m.PerPage != 100 {
					t.Errorf("%s.List per page %d: meta %+v, want per_page 100", what, pp, m)
				}
			}
		}
	})
}

// TestSecurityErrorAmplification (API4): a bad request's error body is
// bounded, whatever the number of faults in the request.
func TestSecurityErrorAmplification(t *testing.T) {
	t.Parallel()
	svc := e2etest.StartService(t, migrated.SQLite(t))
	c := svc.Client(t, svc.DemoKey)
	var b strings.Builder
	b.WriteString(`{"name":"x"`)
	for i := range 60000 {
		fmt.Fprintf(&b, `,"k%d":0`, i)
	}
	b.WriteString("}")
	r := c.Do("POST", "/api/v1/buyers", b.String()).Want(t, 422, "VALIDATION_FAILED")
	if len(r.Raw) > 64<<10 {
		t.Errorf("a %d-byte request got a %d-byte error body", b.Len(), len(r.Raw))
	}
}

// TestSecurityRateLimit (API4): past its key's limit every operation, read
// or write, is a 429 with Retry-After that changes nothing; the window is
// the key's own, and requests without a valid key spend nobody's window.
func TestSecurityRateLimit(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--rate-limit", "5")
		ctx, mangled := t.Context(), svc.API(t, svc.DemoKey+"x")
		for range 10 {
			_, err := mangled.Buyers.List(ctx, nil)
			secWant(t, err, 401, client.CodeUnauthorized)
		}
		a, api := svc.Client(t, svc.DemoKey), svc.API(t, svc.DemoKey)
		r := a.Do("GET", "/api/v1/profile", nil).Want(t, 200, "")
		if r.Header.Get("X-RateLimit-Remaining") != "4" {
			t.Errorf("first request of the key: X-RateLimit-Remaining %q, want 4 (401s spend no window)", r.Header.Get("X-RateLimit-Remaining"))
		}
		tenantA := e2etest.Str(r.Data()["id"])
		for range 4 {
			states, err := api.Codes.States(ctx)
			e2etest.Must(t, states, err)
		}
		for _, m := range []string{"POST", "GET"} {
			var body any
			if m == "POST" {
				body = e2etest.ValidBuyer("Over the limit")
			}
			r := a.Do(m, "/api/v1/buyers", body).Want(t, 429, "RATE_LIMIT_EXCEEDED")
			if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" || strings.ContainsAny(ra, ".-") || r.Header.Get("X-RateLimit-Remaining") != "0" {
				t.Errorf("%s over the limit: Retry-After %q, X-RateLimit-Remaining %q", m, ra, r.Header.Get("X-RateLimit-Remaining"))
			}
		}
		// The typed client reads the same 429: the code, the request's id
		// and how long to wait.
		_, err := api.Buyers.Create(ctx, e2etest.ReadyBuyer("Over the limit, typed"))
		if e := secWant(t, err, 429, client.CodeRateLimitExceeded); e.RetryAfter <= 0 {
			t.Errorf("typed Buyers.Create over the limit: RetryAfter %v", e.RetryAfter)
		}
		_, err = api.Buyers.List(ctx, nil)
		if e := secWant(t, err, 429, client.CodeRateLimitExceeded); e.RetryAfter <= 0 {
			t.Errorf("typed Buyers.List over the limit: RetryAfter %v", e.RetryAfter)
		}
		// The refused writes stored nothing; another key has its own window.
		a2 := svc.API(t, e2etest.SecKey(t, dsn, tenantA))
		if page, err := a2.Buyers.List(ctx, nil); e2etest.Must(t, page, err).Meta.Total != 0 || len(page.Items) != 0 {
			t.Errorf("a write refused with 429 stored a buyer: %+v", page)
		}
		_, keyB := e2etest.SecTenant(t, dsn, "Other Tenant Sdn. Bhd.", "C1234567890")
		if p, err := svc.API(t, keyB).Profile.Get(ctx); e2etest.Must(t, p, err).ID == tenantA {
			t.Errorf("tenant B's key reads tenant A's profile")
		}
	})
}

// TestSecuritySlowClient (API4): the server's timeouts and header limit are
// set (their defaults: TestServerLimits of internal/cli); a client that sends its headers too slowly is cut off; oversized
// headers (a big header, a 100 kB key, a 100,000-character query, just
// over 64 KiB or far over it) are refused with our JSON 431.
func TestSecuritySlowClient(t *testing.T) {
	t.Parallel()
	svc := e2etest.StartService(t, migrated.SQLite(t))
	addr := strings.TrimPrefix(svc.URL, "http://")
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}

	big := func(n int) string { return strings.Repeat("a", n) }
	for _, c := range []struct {
		name, method, target, header string
	}{
		{"200 KiB header", "GET", "/healthz", "X-Big: " + big(200<<10)},
		{"1 MB header", "POST", "/api/v1/buyers", "X-Big: " + big(1_000_000)},
		{"100 kB key", "GET", "/api/v1/profile", "Authorization: Bearer eik_" + big(100_000)},
		{"100,000-character query", "GET", "/api/v1/buyers?search=" + big(100_000), "X-Small: 1"},
		{"just over 64 KiB", "GET", "/api/v1/buyers", "X-Big: " + big(64<<10)},
		{"many headers", "GET", "/api/v1/invoices", strings.Repeat("X-Many: "+big(1000)+"\r\n", 100) + "X-Last: 1"},
	} {
		req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\n%s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", c.method, c.target, addr, c.header)
		resp := rawRequest(t, addr, req)
		if resp.status != http.StatusRequestHeaderFieldsTooLarge || resp.header.Get("Content-Type") != "application/json" ||
			resp.body["error_code"] != "REQUEST_HEADER_FIELDS_TOO_LARGE" || resp.body["success"] != false || resp.header.Get("X-Request-Id") == "" {
			t.Errorf("%s: %d %v %s, want our JSON 431", c.name, resp.status, resp.header, resp.raw)
		}
		secWantHeaders(t, c.name, resp.header, "no-store")
		path, _, _ := strings.Cut(c.target, "?")
		r, _ := http.NewRequest(c.method, svc.URL+path, nil)
		e2etest.Contract(t).Check(t, r, resp.status, resp.header, resp.raw)
	}
	// Just under the limit is served.
	under := fmt.Sprintf("GET /healthz HTTP/1.1\r\nHost: %s\r\nX-Big: %s\r\nConnection: close\r\n\r\n", addr, big(63<<10))
	if resp := rawRequest(t, addr, under); resp.status != 200 {
		t.Errorf("63 KiB of headers: %d %s, want 200", resp.status, resp.raw)
	}

	if testing.Short() {
		t.Skip("-short: the slow-header check waits for the 5 s ReadHeaderTimeout")
	}
	conn := dial()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n"); err != nil { // and never the blank line
		t.Fatal(err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	n, err := conn.Read(make([]byte, 512))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("a client sending its headers slowly kept its connection for 20 s")
	} else if n > 0 && err == nil {
		t.Logf("the server answered the slow client before closing")
	}
	t.Logf("slow client cut off after %v", time.Since(start).Round(100*time.Millisecond))
}

// rawAnswer is an answer read off a raw connection.
type rawAnswer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// rawRequest sends req, a whole HTTP/1.1 request as text, on a new
// connection to addr and reads the answer. The request is written while
// the answer is read: the server may answer before it has read it all.
func rawRequest(t *testing.T, addr, req string) rawAnswer {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() { _, _ = io.WriteString(conn, req) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60s...: %v", req, err)
	}
	defer resp.Body.Close()
	a := rawAnswer{status: resp.StatusCode, header: resp.Header}
	a.raw, _ = io.ReadAll(resp.Body)
	_ = json.Unmarshal(a.raw, &a.body)
	return a
}

// secURLWords are the words of a field or parameter name that could carry a
// URL.
var secURLWords = map[string]bool{"url": true, "uri": true, "urls": true, "link": true, "href": true, "host": true, "hostname": true,
	"endpoint": true, "callback": true, "webhook": true, "redirect": true, "domain": true, "server": true, "site": true, "origin": true}

var secWordRE = regexp.MustCompile(`[A-Z]?[a-z0-9]+|[A-Z]+(?:[a-z0-9]+)?`)

// secNotURL are the names with such a word that hold no URL, each checked
// against a closed list (countryOfOrigin: a code of GET /countries).
var secNotURL = map[string]bool{"countryOfOrigin": true}

// secURLish tells a name (camelCase or snake_case) with a word of secURLWords.
func secURLish(name string) bool {
	if secNotURL[name] {
		return false
	}
	for _, w := range secWordRE.FindAllString(name, -1) {
		if secURLWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// TestSecurityNoUserSuppliedURL (API7): no request field or parameter of the
// OpenAPI document carries a URL; the authority's environment is a closed
// list, and a URL or an unknown field in its place is refused.
func TestSecurityNoUserSuppliedURL(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(apidoc.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	params := doc["components"].(map[string]any)["parameters"].(map[string]any)
	var found []string
	seen := map[string]bool{}
	var walk func(where string, s map[string]any)
	walk = func(where string, s map[string]any) {
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if !seen[name] {
				seen[name] = true
				if sub, ok := schemas[name].(map[string]any); ok {
					walk(name, sub)
				}
			}
			return
		}
		if f, _ := s["format"].(string); strings.Contains(f, "uri") || strings.Contains(f, "url") || f == "hostname" {
			found = append(found, where+" (format "+f+")")
		}
		for name, p := range secMap(s["properties"]) {
			if secURLish(name) {
				found = append(found, where+"."+name)
			}
			walk(where+"."+name, p.(map[string]any))
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if sub, ok := s[k].(map[string]any); ok {
				walk(where+"[]", sub)
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			for _, sub := range secSlice(s[k]) {
				walk(where, sub.(map[string]any))
			}
		}
	}
	bodies := 0
	for path, item := range secMap(doc["paths"]) {
		for method, o := range secMap(item) {
			op, ok := o.(map[string]any)
			if !ok {
				continue
			}
			where := strings.ToUpper(method) + " " + path
			for _, c := range secMap(secMap(op["requestBody"])["content"]) {
				bodies++
				walk(where, secMap(c)["schema"].(map[string]any))
			}
			for _, p := range secSlice(op["parameters"]) {
				pm := p.(map[string]any)
				if ref, ok := pm["$ref"].(string); ok {
					pm = params[strings.TrimPrefix(ref, "#/components/parameters/")].(map[string]any)
				}
				if name := e2etest.Str(pm["name"]); secURLish(name) {
					found = append(found, where+" parameter "+name)
				}
			}
		}
	}
	if bodies < 10 || !seen["AuthorityInput"] || !seen["DocumentInput"] {
		t.Fatalf("walked %d request bodies and schemas %v: not the whole document", bodies, seen)
	}
	// The one URL a client gives on purpose: a webhook's, which the
	// service POSTs events to. It is guarded (TestWebhookBadInput,
	// TestWebhookPrivateAtDelivery): absolute http(s), no credentials, no
	// loopback, private or link-local address, at creation and again on
	// the address dialled, no redirect followed, answers capped.
	allowed := map[string]bool{"WebhookInput.url": true, "WebhookUpdate.url": true}
	found = slices.DeleteFunc(found, func(f string) bool { return allowed[f] })
	if len(found) > 0 {
		sort.Strings(found)
		t.Errorf("request fields or parameters that could carry a URL (the service must never fetch a client's URL): %v", found)
	}

	svc := e2etest.StartService(t, migrated.SQLite(t))
	c, api, ctx := svc.Client(t, svc.DemoKey), svc.API(t, svc.DemoKey), t.Context()
	before := c.Do("GET", "/api/v1/profile", nil).Want(t, 200, "").Raw
	typedBefore, err := api.Profile.Get(ctx)
	e2etest.Must(t, typedBefore, err)
	for _, tc := range []struct {
		authority map[string]any
		field     string
	}{
		{map[string]any{"environment": "https://attacker.example", "mode": "taxpayer"}, "authority.environment"},
		{map[string]any{"environment": "http://169.254.169.254/latest", "mode": "taxpayer"}, "authority.environment"},
		{map[string]any{"environment": "custom", "mode": "taxpayer"}, "authority.environment"},
		{map[string]any{"environment": "sandbox", "mode": "taxpayer", "baseUrl": "https://attacker.example"}, "authority.baseUrl"},
		{map[string]any{"environment": "sandbox", "mode": "taxpayer", "apiUrl": "https://attacker.example"}, "authority.apiUrl"},
		{map[string]any{"environment": "sandbox", "mode": "taxpayer", "portalUrl": "https://attacker.example"}, "authority.portalUrl"},
	} {
		p := e2etest.SampleProfile()
		p["authority"] = tc.authority
		if r := c.Do("PUT", "/api/v1/profile", p).Want(t, 422, "VALIDATION_FAILED"); r.FieldErrors()[tc.field] == nil {
			t.Errorf("authority %v: errors %v, want %s named", tc.authority, r.FieldErrors(), tc.field)
		}
	}
	p := e2etest.SampleProfile()
	p["authorityUrl"] = "https://attacker.example"
	c.Do("PUT", "/api/v1/profile", p).Want(t, 422, "VALIDATION_FAILED")
	// The environments the typed client can send: refused the same way.
	for _, env := range []string{"https://attacker.example", "http://169.254.169.254/latest", "custom"} {
		_, err := api.Profile.Update(ctx, e2etest.SecProfile(t), &client.AuthorityUpdate{Environment: env, Mode: "taxpayer"})
		if e := secWant(t, err, 422, client.CodeValidationFailed); e.Fields["authority.environment"] == nil {
			t.Errorf("typed authority environment %q: errors %v, want authority.environment named", env, e.Fields)
		}
	}
	if after := c.Do("GET", "/api/v1/profile", nil).Want(t, 200, "").Raw; !bytes.Equal(before, after) {
		t.Errorf("refused profile updates changed the profile")
	}
	typedAfter, err := api.Profile.Get(ctx)
	if d := cmp.Diff(typedBefore, e2etest.Must(t, typedAfter, err)); d != "" {
		t.Errorf("refused profile updates changed the typed profile (-before +after):\n%s", d)
	}
}

func secMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func secSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// secLeakMarkers are what an error body must never show: stack traces, SQL,
// database drivers, source paths.
var secLeakMarkers = []string{"goroutine ", "panic", ".go:", "runtime.", "runtime/", "select ", "insert into", "update ", "delete from",
	"sqlite", "pq:", "pgx", "sqlstate", "postgres", "database/sql", "/internal/", "/home/", "/root/", "/work/", "/tmp/", "/usr/"}

func secLeak(body []byte) string {
	lower := strings.ToLower(string(body))
	for _, m := range secLeakMarkers {
		if strings.Contains(lower, m) {
			return m
		}
	}
	return ""
}

// secWantHeaders checks the headers every answer carries.
func secWantHeaders(t *testing.T, what string, h http.Header, cache string) {
	t.Helper()
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Cache-Control": cache, "Referrer-Policy": "no-referrer"} {
		if got := h.Get(k); got != want {
			t.Errorf("%s: %s %q, want %q", what, k, got, want)
		}
	}
	if h.Get("X-Request-Id") == "" {
		t.Errorf("%s: no X-Request-Id", what)
	}
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Server", "X-Powered-By"} {
		if v := h.Get(k); v != "" {
			t.Errorf("%s: %s: %q", what, k, v)
		}
	}
}

// TestSecurityMisconfiguration (API8): every answer, success or error, of
// every kind, carries the security headers and no CORS grant; error bodies
// are JSON in our shape and never show a stack trace, SQL, a driver or a
// path; bad bodies are 4xx; unknown routes 404, wrong methods 405 with
// Allow; path-cleaning redirects stay on the host.
func TestSecurityMisconfiguration(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		f := newSecFixture(t, dsn)
		ro := e2etest.SecKey(t, dsn, f.tenantA, "--read-only")
		buyer := func(mut func(b map[string]any)) map[string]any {
			b := e2etest.ValidBuyer("Misconfigured")
			mut(b)
			return b
		}
		hugeDoc := e2etest.SingleLineBody("SEC-HUGE-1")
		hugeDoc["buyerId"] = f.buyer
		hugeDoc["invoiceLines"].([]any)[0].(map[string]any)["quantity"] = e2etest.JSONNumber("1e999999999")
		cases := []struct {
			name, method, path string
			body               any
			headers            []string
			key                string // "" the demo key; "-" none; "ro" the read-only key
			status             int
		}{
			{"profile", "GET", "/api/v1/profile", nil, nil, "", 200},
			{"create", "POST", "/api/v1/buyers", e2etest.ValidBuyer("Created"), nil, "", 201},
			{"list", "GET", "/api/v1/invoices?per_page=2", nil, nil, "", 200},
			{"PDF", "GET", "/api/v1/documents/" + f.valid + "/pdf", nil, nil, "", 200},
			{"QR image", "GET", "/api/v1/documents/" + f.valid + "/qr", nil, []string{"Accept", "image/png"}, "", 200},
			{"UBL", "GET", "/api/v1/documents/" + f.valid + "/ubl", nil, nil, "", 200},
			{"status", "GET", "/api/v1/documents/" + f.valid + "/status", nil, nil, "", 200},
			{"healthz", "GET", "/healthz", nil, nil, "-", 200},
			{"readyz", "GET", "/readyz", nil, nil, "-", 200},
			{"metrics", "GET", "/metrics", nil, nil, "-", 200},
			{"docs", "GET", "/docs", nil, nil, "-", 200},
			{"malformed JSON", "POST", "/api/v1/buyers", `{"name": "x",`, nil, "", 400},
			{"not JSON at all", "PUT", "/api/v1/profile", "<xml/>", nil, "", 400},
			{"huge number for a string", "POST", "/api/v1/buyers", `{"name": 1e999999999}`, nil, "", 400},
			{"huge number for a quantity", "POST", "/api/v1/invoices", hugeDoc, nil, "", 422},
			{"huge integer for a boolean", "POST", "/api/v1/buyers", `{"name": "x", "is_draft": 123456789012345678901234567890}`, nil, "", 400},
			{"invalid UTF-8", "POST", "/api/v1/buyers", []byte("{\"name\":\"\xc3\x28\"}"), nil, "", 400},
			{"text/plain", "POST", "/api/v1/buyers", `{"name":"x"}`, []string{"Content-Type", "text/plain"}, "", 415},
			{"form", "POST", "/api/v1/buyers", "name=x", []string{"Content-Type", "application/x-www-form-urlencoded"}, "", 415},
			{"no content type", "POST", "/api/v1/buyers", `{"name":"x"}`, []string{"Content-Type", ""}, "", 415},
			{"wrong type", "POST", "/api/v1/buyers", buyer(func(b map[string]any) { b["address"] = []any{1} }), nil, "", 400},
			{"unknown field", "POST", "/api/v1/buyers", buyer(func(b map[string]any) { b["$where"] = "1=1" }), nil, "", 422},
			{"SQL-looking search", "GET", "/api/v1/buyers?search=%27%20OR%201%3D1%20--", nil, nil, "", 200},
			{"SQL-looking id", "GET", "/api/v1/buyers/1%27%20OR%20%271%27%3D%271", nil, nil, "", 404},
			{"bad per_page", "GET", "/api/v1/buyers?per_page=abc", nil, nil, "", 422},
			{"not acceptable", "GET", "/api/v1/buyers", nil, []string{"Accept", "text/html"}, "", 406},
			{"no key", "GET", "/api/v1/buyers", nil, nil, "-", 401},
			{"read-only key", "DELETE", "/api/v1/buyers/" + f.buyer, nil, nil, "ro", 403},
			{"unknown id", "GET", "/api/v1/invoices/01900000-0000-7000-8000-000000000001", nil, nil, "", 404},
			{"in use", "DELETE", "/api/v1/buyers/" + f.buyer, nil, nil, "", 409},
			{"not editable", "PUT", "/api/v1/invoices/" + f.valid, "not even JSON", nil, "", 409},
			{"too large", "POST", "/api/v1/buyers", append(append([]byte(`{"name":"`), bytes.Repeat([]byte("a"), 2<<20)...), `"}`...), nil, "", 413},
			{"unknown route", "GET", "/api/v1/nothing-here", nil, nil, "", 404},
			{"unknown route, no key", "GET", "/nothing-here", nil, nil, "-", 404},
			{"wrong method", "PATCH", "/api/v1/buyers/" + f.buyer, nil, nil, "", 405},
			{"TRACE", "TRACE", "/api/v1/profile", nil, nil, "", 405},
			{"OPTIONS preflight", "OPTIONS", "/api/v1/buyers", nil, []string{"Access-Control-Request-Method", "DELETE"}, "-", 405},
		}
		keys := map[string]string{"": f.svc.DemoKey, "-": "", "ro": ro}
		for _, tc := range cases {
			c := f.svc.Client(t, keys[tc.key])
			r := c.Do(tc.method, tc.path, tc.body, append([]string{"Origin", "https://attacker.example"}, tc.headers...)...)
			what := tc.name + ": " + tc.method + " " + tc.path
			if r.Status != tc.status {
				t.Errorf("%s = %d, want %d: %.300s", what, r.Status, tc.status, r.Raw)
			}
			secWantHeaders(t, what, r.Header, "no-store")
			if r.Status < 400 {
				continue
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" || r.Body["success"] != false || r.ErrorCode() == "" || e2etest.Str(r.Body["message"]) == "" {
				t.Errorf("%s: error answer %s %s, want our JSON error", what, ct, r.Raw)
			}
			if m := secLeak(r.Raw); m != "" {
				t.Errorf("%s: the error body shows %q: %s", what, m, r.Raw)
			}
			if r.Status == 405 && (r.Header.Get("Allow") == "" || r.ErrorCode() != "METHOD_NOT_ALLOWED") {
				t.Errorf("%s: 405 without Allow: %v", what, r.Header)
			}
		}
		// Some of the same answers through the typed client: its *client.Error
		// carries the code, a message and the request's id, and leaks nothing.
		ctx, api, roAPI, anonAPI := t.Context(), f.api, f.svc.API(t, ro), f.svc.API(t, "")
		notEditable := secInvoice(t, "SEC-VALID-1", f.buyer)
		if page, err := api.Buyers.List(ctx, &client.PartyListOptions{Search: "' OR 1=1 --"}); e2etest.Must(t, page, err).Meta.Total != 0 || len(page.Items) != 0 {
			t.Errorf("a SQL-looking search found %d buyers: %+v", page.Meta.Total, page.Items)
		}
		for _, tc := range []struct {
			name   string
			call   func() error
			status int
			code   string
		}{
			{"SQL-looking id", func() error { _, err := api.Buyers.Get(ctx, "1' OR '1'='1"); return err }, 404, client.CodeBuyerNotFound},
			{"unknown id", func() error {
				_, err := api.Documents.Get(ctx, "01900000-0000-7000-8000-000000000001")
				return err
			}, 404, client.CodeDocumentNotFound},
			{"in use", func() error { return api.Buyers.Delete(ctx, f.buyer) }, 409, client.CodeBuyerInUse},
			{"not editable", func() error {
				_, err := api.Documents.Update(ctx, f.valid, notEditable)
				return err
			}, 409, client.CodeDocumentNotDraft},
			{"read-only key", func() error { return roAPI.Buyers.Delete(ctx, f.buyer) }, 403, client.CodeForbidden},
			{"no key", func() error { _, err := anonAPI.Buyers.List(ctx, nil); return err }, 401, client.CodeUnauthorized},
		} {
			t.Run("typed "+tc.name, func(t *testing.T) {
				if e := secWant(t, tc.call(), tc.status, tc.code); secLeak(e.Body) != "" {
					t.Errorf("the error body shows %q: %s", secLeak(e.Body), e.Body)
				}
			})
		}

		// The OpenAPI document is public and may be cached; the other
		// headers hold.
		r := f.svc.Client(t, "").Do("GET", "/openapi.json", nil).Want(t, 200, "")
		secWantHeaders(t, "GET /openapi.json", r.Header, "public, max-age=300")

		// Paths are matched as sent: one the mux would clean (or complete
		// with a slash) is a JSON 404, never a redirect, on or off the host.
		addr := strings.TrimPrefix(f.svc.URL, "http://")
		for _, p := range []string{"//attacker.example/x", "/.//attacker.example/", "/api/v1/..//attacker.example", "///attacker.example/%2e%2e",
			"POST /api/v1/invoices/../buyers", "POST //api/v1/buyers", "/api/v1/./buyers", "/api/v1/buyers/", "/sandbox", "/healthz/."} {
			method := "GET"
			if m, path, ok := strings.Cut(p, " "); ok {
				method, p = m, path
			}
			resp := rawRequest(t, addr, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", method, p, addr))
			if resp.status != 404 || resp.header.Get("Location") != "" || resp.body["error_code"] != "NOT_FOUND" {
				t.Errorf("%s %s: %d Location %q %s, want a JSON 404", method, p, resp.status, resp.header.Get("Location"), resp.raw)
			}
			secWantHeaders(t, method+" "+p, resp.header, "no-store")
		}
		// The built-in sandbox's answers carry the headers too.
		resp, err := http.Get(f.svc.URL + "/sandbox/portal/NOPE/share/NOPE")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("sandbox portal of an unknown document: %d", resp.StatusCode)
		}
		secWantHeaders(t, "sandbox portal", resp.Header, "no-store")
	})
}

// TestSecurityNulCharacter (API8): a U+0000 in a string field or a search is
// a client's input, never a 500.
func TestSecurityNulCharacter(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		c, api, ctx := svc.Client(t, svc.DemoKey), svc.API(t, svc.DemoKey), t.Context()
		plain, err := api.Buyers.Create(ctx, e2etest.ReadyBuyer("Plain"))
		buyer := e2etest.Must(t, plain, err).ID
		doc := e2etest.SingleLineBody("SEC-NUL\u0000-1")
		doc["buyerId"] = buyer
		for _, rq := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/api/v1/buyers", e2etest.ValidBuyer("Nul\u0000byte")},
			{"PUT", "/api/v1/buyers/" + buyer, e2etest.ValidBuyer("Nul\u0000byte")},
			{"POST", "/api/v1/invoices", doc},
			{"PUT", "/api/v1/profile", map[string]any{"name": "Nul\u0000byte"}},
			{"GET", "/api/v1/buyers?search=a%00b", nil},
			{"GET", "/api/v1/invoices?search=a%00b", nil},
		} {
			if r := c.Do(rq.method, rq.path, rq.body); r.Status >= 500 {
				t.Errorf("%s %s with U+0000: %d", rq.method, rq.path, r.Status)
			}
		}
		// The typed client sends a U+0000 as any other character.
		_, err = api.Buyers.Create(ctx, e2etest.ReadyBuyer("Nul\u0000byte, typed"))
		secNo5xx(t, "typed Buyers.Create", err)
		_, err = api.Buyers.Update(ctx, buyer, e2etest.ReadyBuyer("Nul\u0000byte, typed"))
		secNo5xx(t, "typed Buyers.Update", err)
		_, err = api.Documents.Create(ctx, secInvoice(t, "SEC-NUL\u0000-2", buyer))
		secNo5xx(t, "typed Documents.Create", err)
		nul := e2etest.SecProfile(t)
		nul.Name = "Nul\u0000byte"
		_, err = api.Profile.Update(ctx, nul, nil)
		secNo5xx(t, "typed Profile.Update", err)
		_, err = api.Buyers.List(ctx, &client.PartyListOptions{Search: "a\u0000b"})
		secNo5xx(t, "typed Buyers.List", err)
		_, err = api.Documents.List(ctx, &client.DocumentListOptions{Search: "a\u0000b"})
		secNo5xx(t, "typed Documents.List", err)
	})
}

// TestSecurityInventory (API9): the OpenAPI document lists the operations
// endpoints; undocumented paths (other versions, debugging, administration,
// the sandbox's switches without --sandbox-faults) answer 404; every
// documented path answers exactly its documented methods.
func TestSecurityInventory(t *testing.T) {
	t.Parallel()
	svc := e2etest.StartService(t, migrated.SQLite(t))
	c := svc.Client(t, svc.DemoKey)
	documented := map[string]map[string]bool{}
	for _, op := range secOps(t) {
		if documented[op.Path] == nil {
			documented[op.Path] = map[string]bool{}
		}
		documented[op.Path][op.Method] = true
	}
	for _, p := range []string{"/metrics", "/docs", "/openapi.json", "/healthz", "/readyz"} {
		if !documented[p]["GET"] {
			t.Errorf("GET %s is served but not in the OpenAPI document", p)
		}
	}
	for _, p := range []string{"/api/v2/buyers", "/api/v0/buyers", "/api/v1", "/api/v1/", "/api/v1/tenants", "/api/v1/keys",
		"/api/v1/api-keys", "/api/v1/admin", "/api/v1/documents", "/api/v1/documents/01900000-0000-7000-8000-000000000001",
		"/admin", "/debug/pprof/", "/debug/pprof/cmdline", "/debug/vars", "/.env", "/.git/config", "/swagger.json"} {
		for _, key := range []string{svc.DemoKey, ""} {
			svc.Client(t, key).Do("GET", p, nil).Want(t, 404, "NOT_FOUND")
		}
	}
	// The sandbox's fault switches and counts (its own error shape).
	for _, rq := range [][2]string{{"GET", "/sandbox/sandbox/faults"}, {"POST", "/sandbox/sandbox/faults"},
		{"DELETE", "/sandbox/sandbox/faults"}, {"GET", "/sandbox/sandbox/stats"}} {
		req, _ := http.NewRequest(rq[0], svc.URL+rq[1], strings.NewReader(`{"endpoint":"submit","kind":"fail","share":1}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s %s without --sandbox-faults = %d, want 404", rq[0], rq[1], resp.StatusCode)
		}
	}
	// No undocumented method on a documented path.
	for path, methods := range documented {
		p := strings.ReplaceAll(path, "{id}", "01900000-0000-7000-8000-000000000001")
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if methods[m] {
				continue
			}
			r := c.Do(m, p, nil).Want(t, 405, "METHOD_NOT_ALLOWED")
			var allow []string
			for _, a := range strings.Split(r.Header.Get("Allow"), ",") {
				if a = strings.TrimSpace(a); a != "" && a != "HEAD" {
					allow = append(allow, a)
				}
			}
			var want []string
			for dm := range methods {
				want = append(want, dm)
			}
			slices.Sort(allow)
			slices.Sort(want)
			if !slices.Equal(allow, want) {
				t.Errorf("%s %s: Allow %v, the document has %v", m, path, allow, want)
			}
		}
	}
}

// TestSecurityAuthorityAnswersBounded (API10): the authority's answers are
// read within bounds (8 MiB for a success, 64 KiB of an error) and decoded
// defensively: an oversized answer is an error, an error page becomes a
// short message, a mistyped answer no panic.
func TestSecurityAuthorityAnswersBounded(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /connect/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"tok-1","token_type":"Bearer","expires_in":3600,"scope":"InvoicingAPI"}`)
	})
	// The oversized answers are 64 MiB, written a MiB at a time until the
	// client hangs up; written counts what went out per answer.
	const offered = 64 << 20
	var written sync.Map // uuid -> int64
	mux.HandleFunc("GET /api/v1.0/documents/{uuid}/details", func(w http.ResponseWriter, r *http.Request) {
		uuid := r.PathValue("uuid")
		write := func(status int, ct, head string, chunk string, chunks int, tail string) {
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(status)
			var n int64
			defer func() { written.Store(uuid, n) }()
			for i := -1; i <= chunks; i++ {
				p := chunk
				switch i {
				case -1:
					p = head
				case chunks:
					p = tail
				}
				m, err := io.WriteString(w, p)
				n += int64(m)
				if err != nil {
					return
				}
			}
		}
		switch uuid {
		case "HUGE":
			write(200, "application/json", `{"uuid":"`, strings.Repeat("A", 1<<20), offered>>20, `"}`)
		case "HUGEERROR":
			write(500, "text/plain", "", strings.Repeat("x", 1<<20), offered>>20, "")
		case "HTML":
			write(503, "text/html", "<html><head><title>Service Unavailable</title></head><body>", "<p>down</p>", 1000, "</body></html>")
		case "ODD":
			write(200, "application/json", `{"uuid": 5, "status": {"a": [1, 2]}, "validationResults": "nope", "longId": []}`, "", 0, "")
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := myinvois.New(myinvois.Options{Logger: slog.New(slog.DiscardHandler)})
	cred := einvoice.Credentials{BaseURL: srv.URL, ClientID: "client", ClientSecret: "secret"}
	ctx := context.Background()

	if _, err := c.GetDocumentDetails(ctx, cred, "HUGE"); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("a 9 MiB answer: %v, want an error saying it is over the limit", err)
	}
	_, err := c.GetDocumentDetails(ctx, cred, "HUGEERROR")
	if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 500 || len(err.Error()) > 1000 {
		t.Errorf("a 5 MiB error answer: %.1000v, want a CallError 500 with a short message", err)
	}
	_, err = c.GetDocumentDetails(ctx, cred, "HTML")
	if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 503 || !strings.Contains(err.Error(), "Service Unavailable") || len(err.Error()) > 1000 {
		t.Errorf("an HTML error page: %.1000v, want a CallError 503 naming its title", err)
	}
	if st, err := c.GetDocumentDetails(ctx, cred, "ODD"); err == nil {
		t.Logf("a mistyped answer was read as %+v", st)
	}
	// The client hung up: far less than the 64 MiB offered went out (the
	// sockets' buffers take some beyond what the client read).
	srv.Close()
	for _, uuid := range []string{"HUGE", "HUGEERROR"} {
		if n, _ := written.Load(uuid); n == nil || n.(int64) > offered/2 {
			t.Errorf("%s: the authority wrote %v of %d bytes: the client read the oversized answer whole", uuid, n, offered)
		}
	}
}

// TestSecurityBuiltInSandboxIsolation (API1/API2 of the built-in sandbox):
// anyone who reaches the service's port must not read a tenant's documents
// at its sandbox, nor act as the tenant there.
func TestSecurityBuiltInSandboxIsolation(t *testing.T) {
	t.Parallel()
	f := newSecFixture(t, migrated.SQLite(t))
	token := func(clientID, onBehalfOf string) string {
		req, _ := http.NewRequest("POST", f.svc.URL+"/sandbox/connect/token", strings.NewReader(url.Values{
			"client_id": {clientID}, "client_secret": {"guessed"}, "grant_type": {"client_credentials"}, "scope": {"InvoicingAPI"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if onBehalfOf != "" {
			req.Header.Set("onbehalfof", onBehalfOf)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&tok)
		return tok.AccessToken
	}
	// As "the buyer": a TIN printed on every invoice to it.
	q := url.Values{"invoiceDirection": {"Received"},
		"submissionDateFrom": {time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)},
		"submissionDateTo":   {time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}}
	req, _ := http.NewRequest("GET", f.svc.URL+"/sandbox/api/v1.0/documents/search?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+token("anyone", "C20880050010"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if bytes.Contains(raw, []byte("SEC-VALID-1")) || bytes.Contains(raw, []byte("sandbox-")) {
		t.Errorf("an anonymous caller found the tenant's document and client id at the sandbox: %.500s", raw)
	}
	// As the tenant's sandbox client, with a guessed secret.
	ctx := t.Context()
	prof, err := f.api.Profile.Get(ctx)
	clientID := e2etest.Must(t, prof, err).Authority.ClientID
	st, err := f.api.Documents.Status(ctx, f.valid)
	uuid := e2etest.Must(t, st, err).DocumentUUID
	req, _ = http.NewRequest("PUT", f.svc.URL+"/sandbox/api/v1.0/documents/state/"+uuid+"/state", strings.NewReader(`{"status":"cancelled","reason":"not the tenant"}`))
	req.Header.Set("Authorization", "Bearer "+token(clientID, ""))
	req.Header.Set("Content-Type", "application/json")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if st, err := f.api.Documents.Status(ctx, f.valid); e2etest.Must(t, st, err).Status != client.StatusValid {
		t.Errorf("a caller with a guessed secret cancelled the tenant's document: %v", st.Status)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/cli"
	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testcert"
	"github.com/einvoice/einvoice/internal/testdb"
)

// The lifecycle tests run the whole service with its built-in sandbox over
// real HTTP: the sandbox validates at once (--sandbox-delay 0) and its
// fault switches and counts are on (--sandbox-faults).

// startLifecycleService runs serve for the submission tests.
func startLifecycleService(t *testing.T, dsn string, args ...string) (*service, *rawClient) {
	t.Helper()
	svc := startService(t, dsn, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0", "--sandbox-faults"}, args...)...)
	c := svc.client(t, svc.DemoKey)
	c.do("PUT", "/api/v1/profile", sampleProfile()).want(t, 200, "")
	return svc, c
}

// sandboxStats reads the built-in sandbox's own count of what it received.
type sandboxStats struct {
	Submissions  int            `json:"submissions"`
	Documents    int            `json:"documents"`
	ByCodeNumber map[string]int `json:"byCodeNumber"`
}

func (s *service) sandboxStats(t *testing.T) sandboxStats {
	t.Helper()
	resp, err := http.Get(s.URL + "/sandbox/sandbox/stats")
	if err != nil {
		t.Fatalf("sandbox stats: %v", err)
	}
	defer resp.Body.Close()
	var st sandboxStats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != 200 {
		t.Fatalf("sandbox stats: %d %v", resp.StatusCode, err)
	}
	return st
}

// sentOnce checks the sandbox received each serial exactly once.
func (st sandboxStats) sentOnce(t *testing.T, serials ...string) {
	t.Helper()
	for _, s := range serials {
		n := 0
		for k, v := range st.ByCodeNumber {
			if k == s || strings.HasSuffix(k, "/"+s) {
				n += v
			}
		}
		if n != 1 {
			t.Errorf("the sandbox received %s %d times, want exactly once (%v)", s, n, st.ByCodeNumber)
		}
	}
}

// fault switches a fault of the sandbox on.
func (s *service) fault(t *testing.T, f map[string]any) {
	t.Helper()
	body, _ := json.Marshal(f)
	resp, err := http.Post(s.URL+"/sandbox/sandbox/faults", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("sandbox fault: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("sandbox fault %v: HTTP %d", f, resp.StatusCode)
	}
}

// clearFaults switches every fault off.
func (s *service) clearFaults(t *testing.T) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", s.URL+"/sandbox/sandbox/faults", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("clear faults: %v", err)
	}
	resp.Body.Close()
}

// readyInvoice creates and validates an invoice to the buyer.
func (c *rawClient) readyInvoice(serial, buyerID string) string {
	c.t.Helper()
	body := singleLineBody(serial)
	body["buyerId"] = buyerID
	id := str(c.do("POST", "/api/v1/invoices", body).want(c.t, 201, "").data()["id"])
	c.wantPassed(serial, id)
	return id
}

// waitStatus asks for the status until it is want (or the time is up).
func (c *rawClient) waitStatus(id, want string, within time.Duration) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(within)
	var d map[string]any
	for {
		d = c.do("GET", "/api/v1/documents/"+id+"/status", nil).want(c.t, 200, "").data()
		if d["status"] == want || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if d["status"] != want {
		c.t.Fatalf("document %s is %v after %s, want %s: %v", id, d["status"], within, want, d)
	}
	return d
}

// wantValid checks a status result of a Valid document.
func wantValid(t *testing.T, what string, d map[string]any) {
	t.Helper()
	uuid, long := str(d["document_uuid"]), str(d["document_long_id"])
	if len(uuid) != 26 || strings.ToUpper(uuid) != uuid || len(long) < 26 || d["validated_at"] == nil {
		t.Errorf("%s: status = %v, want a 26-character uuid, a long id and validated_at", what, d)
	}
	if u := str(d["validation_url"]); !strings.HasSuffix(u, "/"+uuid+"/share/"+long) {
		t.Errorf("%s: validation_url = %q, want .../%s/share/%s", what, u, uuid, long)
	}
}

// TestSubmitEveryKind takes a document of each kind, modelled on the
// authority's samples, from create to Valid; the notes refer to the
// authority's uuids of our Valid invoices.
func TestSubmitEveryKind(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		svc, c := startLifecycleService(t, dsn)
		buyer := c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()
		seller := c.do("POST", "/api/v1/on-behalf-sellers", sampleSeller()).want(t, 201, "").data()
		for _, p := range []map[string]any{buyer, seller} {
			if p["isReady"] != true || p["tinCheck"].(map[string]any)["status"] != "verified" {
				t.Fatalf("party not ready with a verified TIN: %v", p)
			}
		}
		uuids := map[string]string{} // serial -> authority uuid
		var serials []string
		for _, r := range realisticSet(str(buyer["id"]), str(seller["id"])) {
			info := kindInfo(t, r.kind)
			serial := str(r.body["invoiceSerialNumber"])
			serials = append(serials, serial)
			if refs, _ := r.body["documentReferences"].([]any); info.Note && len(refs) > 0 {
				ref := refs[0].(map[string]any)
				if u := uuids[str(ref["referenceNumber"])]; u != "" {
					ref["uuid"] = u // the authority's uuid of our Valid invoice
				}
			}
			id := str(c.do("POST", "/api/v1"+info.Path, r.body).want(t, 201, "").data()["id"])
			c.wantPassed(serial, id)
			sub := c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 200, "").data()
			if sub["status"] != "Submitted" || len(str(sub["document_uuid"])) != 26 || sub["invoice_code_number"] != serial {
				t.Errorf("%s: submit = %v, want Submitted with a uuid and the serial", serial, sub)
			}
			st := c.waitStatus(id, "Valid", 20*time.Second)
			wantValid(t, serial, st)
			uuids[serial] = str(st["document_uuid"])
			if sub, _ := st["submission"].(map[string]any); sub["state"] != "done" {
				t.Errorf("%s: Valid, but its job is %v", serial, st["submission"])
			}
			if link := str(st["validation_url"]); !strings.HasPrefix(link, svc.URL+"/sandbox/portal/") {
				t.Errorf("%s: validation_url %q, want the built-in sandbox's portal", serial, link)
			} else if resp, err := http.Get(link); err != nil || resp.StatusCode != 200 {
				t.Errorf("%s: GET %s: %v %v", serial, link, resp, err)
			} else {
				resp.Body.Close()
			}

			doc := c.do("GET", "/api/v1/invoices/"+id, nil).want(t, 200, "").data()
			var statuses []string
			for _, e := range doc["history"].([]any) {
				statuses = append(statuses, str(e.(map[string]any)["status"]))
			}
			if got := strings.Join(statuses, ","); got != "draft,ready,submitting,Submitted,Valid" {
				t.Errorf("%s: history %s", serial, got)
			}
			frozen, _ := doc["frozen"].(map[string]any)
			supplierTIN := "C2584563200" // the tenant; the on-behalf seller on self-billed kinds
			if info.SelfBilled {
				supplierTIN = str(seller["tin"])
			}
			if frozen == nil || frozen["supplier"].(map[string]any)["tin"] != supplierTIN {
				t.Errorf("%s: frozen parties = %v", serial, doc["frozen"])
			}
			if info.Consolidated && frozen["customer"].(map[string]any)["tin"] != einvoice.TINGeneralPublic {
				t.Errorf("%s: consolidated customer = %v, want General Public", serial, frozen["customer"])
			}
			u := c.do("GET", "/api/v1/documents/"+id+"/ubl", nil)
			if u.Status != 200 || ublText(u.Body, "Invoice", "ID") != serial || ublText(u.Body, "Invoice", "InvoiceTypeCode") != info.TypeCode {
				t.Errorf("%s: UBL %d: %.300s", serial, u.Status, u.Raw)
			}
			// Submitted documents are frozen: no edit, no second submit.
			c.do("PUT", "/api/v1/invoices/"+id, r.body).want(t, 409, "DOCUMENT_NOT_DRAFT")
			c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 409, "DOCUMENT_ALREADY_SUBMITTED")
		}
		svc.sandboxStats(t).sentOnce(t, serials...)
		// A later edit of the buyer changes no submitted UBL.
		c.do("PUT", "/api/v1/buyers/"+str(buyer["id"]), func() map[string]any { b := sampleBuyer(); b["name"] = "Renamed"; return b }()).want(t, 200, "")
		page := c.do("GET", "/api/v1/invoices?status=Valid&per_page=100", nil).want(t, 200, "")
		for _, it := range page.Body["data"].([]any) {
			d := it.(map[string]any)
			if u := c.do("GET", "/api/v1/documents/"+str(d["id"])+"/ubl", nil); strings.Contains(string(u.Raw), "Renamed") {
				t.Errorf("%s: the UBL sent changed with the buyer", d["invoiceSerialNumber"])
			}
		}
	})
}

// TestSubmitRefused: what the authority refuses, at submission (422) or at
// validation (Invalid), carries its errors; an Invalid document can be
// corrected and submitted again.
func TestSubmitRefused(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		_, c := startLifecycleService(t, dsn)
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])

		// The authority does not know a TIN: the buyer is not ready, and a
		// document to it does not validate.
		unknown := sampleBuyer()
		unknown["tin"] = "C99999999990"
		ub := c.do("POST", "/api/v1/buyers", unknown).want(t, 201, "").data()
		if ub["isReady"] != false || ub["tinCheck"].(map[string]any)["status"] != "not_found" || ub["readinessErrors"].(map[string]any)["tin"] == nil {
			t.Errorf("buyer with an unknown TIN: %v", ub)
		}
		unk := singleLineBody("INV-UNKNOWN-TIN")
		unk["buyerId"] = ub["id"]
		c.wantFailed("unknown TIN", str(c.do("POST", "/api/v1/invoices", unk).want(t, 201, "").data()["id"]), problem{"PARTY_NOT_READY", "buyer.tin"})
		unknown["tin"] = "C99999999980" // corrected: known
		if ub = c.do("PUT", "/api/v1/buyers/"+str(ub["id"]), unknown).want(t, 200, "").data(); ub["isReady"] != true {
			t.Errorf("corrected buyer: %v", ub)
		}

		// A credit note on an invoice the authority does not know: accepted,
		// then found Invalid by its referenced-documents validator.
		note := noteOf(singleLineBody("CN-EXT-1"), "OLD-INV-9", "ABCDEFGHJKLMNPQRSTUVWXYZ12")
		note["buyerId"] = buyer
		id := str(c.do("POST", "/api/v1/credit-notes", note).want(t, 201, "").data()["id"])
		c.wantPassed("CN-EXT-1", id)
		c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 200, "")
		st := c.waitStatus(id, "Invalid", 20*time.Second)
		errs, _ := st["authority_errors"].([]any)
		if len(errs) == 0 || !strings.Contains(strings.ToLower(fmt.Sprint(errs)), "referenc") {
			t.Errorf("Invalid note: authority_errors = %v, want the referenced-document error", st["authority_errors"])
		}
		// Invalid is editable: correct it (pre-e-invoicing reference), validate, submit again.
		note["documentReferences"] = []any{map[string]any{"referenceNumber": "NA", "uuid": "NA"}}
		note["isPreEinvoicing"] = true
		c.do("PUT", "/api/v1/invoices/"+id, note).want(t, 200, "")
		c.wantPassed("CN-EXT-1 corrected", id)
		c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 200, "")
		c.waitStatus(id, "Valid", 20*time.Second)

		// As an intermediary acting for another taxpayer, documents of this
		// supplier are refused at submission: 422 with the authority's error.
		cur := c.do("GET", "/api/v1/profile", nil).want(t, 200, "").data()["authority"].(map[string]any)
		prof := sampleProfile()
		prof["authority"] = map[string]any{"environment": "sandbox", "mode": "intermediary", "onBehalfOf": "C1111111110", "clientId": cur["clientId"]}
		c.do("PUT", "/api/v1/profile", prof).want(t, 200, "")
		inv := c.readyInvoice("INV-IM-1", buyer)
		r := c.do("POST", "/api/v1/documents/"+inv+"/submit", nil).want(t, 422, "AUTHORITY_REJECTED")
		if a, _ := r.fieldErrors()["authority"].([]any); len(a) == 0 {
			t.Errorf("422 without errors.authority: %s", r.Raw)
		}
		if s, _, _ := c.lastEvent(inv); s != "Invalid" {
			t.Errorf("refused document is %s, want Invalid", s)
		}
	})
}

// TestSubmitTwice: a document is sent once, however often and however
// concurrently it is submitted.
func TestSubmitTwice(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		svc, c := startLifecycleService(t, dsn)
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		one := c.readyInvoice("INV-TWICE-1", buyer)
		c.do("POST", "/api/v1/documents/"+one+"/submit", nil).want(t, 200, "")
		c.do("POST", "/api/v1/documents/"+one+"/submit", nil).want(t, 409, "DOCUMENT_ALREADY_SUBMITTED")

		many := c.readyInvoice("INV-TWICE-20", buyer)
		var ok200, ok202, conflict atomic.Int32
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				r := c.do("POST", "/api/v1/documents/"+many+"/submit", nil)
				switch {
				case r.Status == 200:
					ok200.Add(1)
				case r.Status == 202:
					ok202.Add(1)
				case r.Status == 409 && r.errorCode() == "DOCUMENT_ALREADY_SUBMITTED":
					conflict.Add(1)
				default:
					t.Errorf("concurrent submit: %d %s", r.Status, r.Raw)
				}
			})
		}
		wg.Wait()
		if ok200.Load() != 1 {
			t.Errorf("20 concurrent submits: %d answered 200, %d 202, %d 409; want exactly one 200", ok200.Load(), ok202.Load(), conflict.Load())
		}
		c.waitStatus(many, "Valid", 20*time.Second)

		// Pairs racing on one document each: the loser answers from
		// committed state (202 or 409), never a false 422 (on SQLite the
		// group commit once answered the loser before the winner's commit).
		var pairs []string
		for i := range 20 {
			doc := c.readyInvoice(fmt.Sprintf("INV-PAIR-%02d", i), buyer)
			pairs = append(pairs, doc)
			for range 2 {
				wg.Go(func() {
					r := c.do("POST", "/api/v1/documents/"+doc+"/submit", nil)
					if r.Status != 200 && r.Status != 202 && !(r.Status == 409 && r.errorCode() == "DOCUMENT_ALREADY_SUBMITTED") {
						t.Errorf("racing pair on %s: %d %s", doc, r.Status, r.Raw)
					}
				})
			}
		}
		wg.Wait()
		for _, doc := range pairs {
			c.waitStatus(doc, "Valid", 20*time.Second)
		}
		serials := []string{"INV-TWICE-1", "INV-TWICE-20"}
		for i := range pairs {
			serials = append(serials, fmt.Sprintf("INV-PAIR-%02d", i))
		}
		svc.sandboxStats(t).sentOnce(t, serials...)
	})
}

// TestSubmitBulk: 100 ids, some not ready or unknown; the ready ones go in
// one submission and end Valid.
func TestSubmitBulk(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		svc, c := startLifecycleService(t, dsn)
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		var ids, serials []string
		for i := range 90 {
			serial := fmt.Sprintf("INV-BULK-%03d", i)
			body := singleLineBody(serial)
			body["buyerId"] = buyer
			id := str(c.do("POST", "/api/v1/invoices", body).want(t, 201, "").data()["id"])
			c.validate(id)
			ids, serials = append(ids, id), append(serials, serial)
		}
		var drafts []string
		for i := range 6 {
			body := singleLineBody(fmt.Sprintf("INV-DRAFT-%d", i))
			body["buyerId"] = buyer
			drafts = append(drafts, str(c.do("POST", "/api/v1/invoices", body).want(t, 201, "").data()["id"])) // not validated: draft
		}
		unknown := []string{"01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002", "not-an-id", "01900000-0000-7000-8000-000000000003"}
		all := append(append(append([]string{}, ids...), drafts...), unknown...)
		if len(all) != 100 {
			t.Fatalf("built %d ids", len(all))
		}
		res := c.do("POST", "/api/v1/documents/submit-bulk", map[string]any{"document_ids": all}).want(t, 200, "").data()
		acc, _ := res["accepted"].([]any)
		rej, _ := res["rejected"].([]any)
		uids, _ := res["submission_uids"].([]any)
		if len(acc) != 90 || len(rej) != 10 || len(uids) != 1 {
			t.Fatalf("bulk: %d accepted, %d rejected, %d submissions; want 90, 10, 1: %v", len(acc), len(rej), len(uids), res)
		}
		codes := map[string]int{}
		for _, r := range rej {
			codes[str(r.(map[string]any)["error_code"])]++
		}
		if codes["DOCUMENT_NOT_READY"] != 6 || codes["DOCUMENT_NOT_FOUND"] != 4 {
			t.Errorf("rejected codes = %v, want 6 DOCUMENT_NOT_READY and 4 DOCUMENT_NOT_FOUND", codes)
		}
		for _, id := range ids {
			c.waitStatus(id, "Valid", 30*time.Second)
		}
		svc.sandboxStats(t).sentOnce(t, serials...)
		// Bounds: none, more than 100.
		c.do("POST", "/api/v1/documents/submit-bulk", map[string]any{"document_ids": []string{}}).want(t, 422, "VALIDATION_FAILED")
		c.do("POST", "/api/v1/documents/submit-bulk", map[string]any{"document_ids": append(all, ids[0])}).want(t, 422, "VALIDATION_FAILED")
	})
}

// TestSubmitBulkDuplicateIDs: an id given more than once in a bulk request
// is processed at its first occurrence, whatever becomes of it there, and
// each later occurrence is listed in rejected with DUPLICATE_ID.
func TestSubmitBulkDuplicateIDs(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		svc, c := startLifecycleService(t, dsn)
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		ready := c.readyInvoice("INV-DUP-1", buyer)
		body := singleLineBody("INV-DUP-DRAFT")
		body["buyerId"] = buyer
		draft := str(c.do("POST", "/api/v1/invoices", body).want(t, 201, "").data()["id"])
		unknown := "01900000-0000-7000-8000-000000000009"

		ids := []string{ready, draft, ready, unknown, draft, ready, unknown}
		res := c.do("POST", "/api/v1/documents/submit-bulk", map[string]any{"document_ids": ids}).want(t, 200, "").data()
		acc, _ := res["accepted"].([]any)
		if len(acc) != 1 || str(acc[0].(map[string]any)["id"]) != ready {
			t.Fatalf("accepted = %v, want only %s, once", acc, ready)
		}
		type rejection struct{ id, code string }
		var got []rejection
		rej, _ := res["rejected"].([]any)
		for _, r := range rej {
			m := r.(map[string]any)
			if str(m["message"]) == "" {
				t.Errorf("rejected entry without a message: %v", m)
			}
			got = append(got, rejection{str(m["id"]), str(m["error_code"])})
		}
		// Rejections are listed in the order of the request.
		want := []rejection{{draft, "DOCUMENT_NOT_READY"}, {ready, "DUPLICATE_ID"}, {unknown, "DOCUMENT_NOT_FOUND"},
			{draft, "DUPLICATE_ID"}, {ready, "DUPLICATE_ID"}, {unknown, "DUPLICATE_ID"}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("rejected = %v\nwant       %v", got, want)
		}
		if p, _ := res["pending"].([]any); len(p) != 0 {
			t.Errorf("pending = %v, want none", p)
		}
		c.waitStatus(ready, "Valid", 20*time.Second)
		svc.sandboxStats(t).sentOnce(t, "INV-DUP-1")
		if s := c.do("GET", "/api/v1/invoices/"+draft, nil).want(t, 200, "").data()["status"]; s != "draft" {
			t.Errorf("the draft given twice is %v, want draft", s)
		}

		// A request of one id given twice: the first goes in, the second is
		// a duplicate, although the first was already submitted by then.
		again := c.readyInvoice("INV-DUP-2", buyer)
		res = c.do("POST", "/api/v1/documents/submit-bulk", map[string]any{"document_ids": []string{again, again}}).want(t, 200, "").data()
		acc, _ = res["accepted"].([]any)
		rej, _ = res["rejected"].([]any)
		if len(acc) != 1 || len(rej) != 1 || str(rej[0].(map[string]any)["error_code"]) != "DUPLICATE_ID" {
			t.Errorf("[id, id]: accepted %v, rejected %v; want the id accepted once and rejected once as DUPLICATE_ID", acc, rej)
		}
	})
}

// TestSubmitSigned: a tenant with a certificate sends version 1.1 documents,
// signed; the sandbox verifies the signature and finds them Valid.
func TestSubmitSigned(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		_, c := startLifecycleService(t, dsn)
		cert, key := testcert.New(t, "Supplier's Name")
		cur := c.do("GET", "/api/v1/profile", nil).want(t, 200, "").data()["authority"].(map[string]any)
		prof := sampleProfile()
		prof["authority"] = map[string]any{"environment": "sandbox", "mode": "taxpayer", "clientId": cur["clientId"],
			"certificatePem": cert, "privateKeyPem": key}
		c.do("PUT", "/api/v1/profile", prof).want(t, 200, "")
		buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		id := c.readyInvoice("INV-SIGNED-1", buyer)
		c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 200, "")
		c.waitStatus(id, "Valid", 20*time.Second)
		u := c.do("GET", "/api/v1/documents/"+id+"/ubl", nil).want(t, 200, "")
		if err := dsig.Verify(u.Raw); err != nil {
			t.Errorf("the UBL sent does not verify: %v", err)
		}
		if v := c.do("GET", "/api/v1/invoices/"+id, nil).data()["authority"].(map[string]any)["version"]; v != "1.1" {
			t.Errorf("version %v, want 1.1", v)
		}
	})
}

// TestSeparateSandbox: `einvoice sandbox` runs as its own process with its
// own database, and the service reaches it with --authority-url.
func TestSeparateSandbox(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan int, 1)
	m := &cli.Main{Stdout: &servetest.Buffer{}, Stderr: &servetest.Buffer{}, Ready: ready,
		Getenv: servetest.Env(map[string]string{"EINVOICE_SECRET_KEY": servetest.SecretKey, "EINVOICE_LOG_LEVEL": "warn"})}
	go func() {
		done <- m.Run(ctx, []string{"sandbox", "--addr", "127.0.0.1:0", "--db", testdb.SQLite(t), "--sandbox-delay", "0", "--sandbox-faults"})
	}()
	var addr string
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("sandbox exited with %d: %s", code, m.Stderr)
	}
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("sandbox exited with %d", code)
		}
	})
	authority := "http://" + addr
	svc, c := startLifecycleService(t, testdb.SQLite(t), "--authority-url", authority, "--portal-url", authority+"/portal")
	buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
	id := c.readyInvoice("INV-APART-1", buyer)
	c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 200, "")
	st := c.waitStatus(id, "Valid", 20*time.Second)
	link := str(st["validation_url"])
	if !strings.HasPrefix(link, authority+"/portal/") {
		t.Errorf("validation_url = %q, want under %s/portal", link, authority)
	}
	if resp, err := http.Get(link); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET %s: %v %v", link, resp, err)
	} else {
		resp.Body.Close()
	}
	// No built-in sandbox is mounted; the separate one has the document.
	if resp, err := http.Get(svc.URL + "/sandbox/connect/token"); err != nil || resp.StatusCode != 404 {
		t.Errorf("built-in sandbox with --authority-url: %v %v, want 404", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Get(authority + "/sandbox/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var stats sandboxStats
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	stats.sentOnce(t, "INV-APART-1")
}

// TestRejectionRequest: the buyer asks the authority to reject a Valid
// document; the status shows it, the document stays Valid, and the tenant
// can still cancel it.
func TestRejectionRequest(t *testing.T) {
	svc, c := startLifecycleService(t, testdb.SQLite(t))
	buyer := str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
	id := c.readyInvoice("INV-REJECT-1", buyer)
	c.do("POST", "/api/v1/documents/"+id+"/submit", nil).want(t, 200, "")
	uuid := str(c.waitStatus(id, "Valid", 20*time.Second)["document_uuid"])

	// The buyer, at the authority (the sandbox lets any client ask).
	form := "client_id=buyer-erp&client_secret=s3cret&grant_type=client_credentials&scope=InvoicingAPI"
	resp, err := http.Post(svc.URL+"/sandbox/connect/token", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	req, _ := http.NewRequest("PUT", svc.URL+"/sandbox/api/v1.0/documents/state/"+uuid+"/state",
		strings.NewReader(`{"status":"rejected","reason":"Wrong quantity delivered"}`))
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("reject at the sandbox: %v %v", resp, err)
	}
	resp.Body.Close()

	st := c.do("GET", "/api/v1/documents/"+id+"/status", nil).want(t, 200, "").data()
	rr, _ := st["rejection_requested"].(map[string]any)
	if st["status"] != "Valid" || rr["reason"] != "Wrong quantity delivered" || rr["cancelBefore"] == nil {
		t.Errorf("status after a rejection request: %v", st)
	}
	doc := c.do("GET", "/api/v1/invoices/"+id, nil).want(t, 200, "").data()
	if a := doc["authority"].(map[string]any); a["rejectionRequested"] == nil {
		t.Errorf("the document does not show the rejection request: %v", a)
	}
	c.do("POST", "/api/v1/documents/"+id+"/cancel", map[string]any{"reason": "Rejected by the buyer"}).want(t, 200, "")
}

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/cli"
	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
)

// The lifecycle tests run the whole service with its built-in sandbox over
// real HTTP: the sandbox validates at once (--sandbox-delay 0) and its
// fault switches and counts are on (--sandbox-faults).

// startLifecycleService runs serve for the submission tests, with the
// untyped client.
func startLifecycleService(t *testing.T, dsn string, args ...string) (*service, *rawClient) {
	t.Helper()
	svc, _ := startLifecycleAPI(t, dsn, args...)
	return svc, svc.client(t, svc.DemoKey)
}

// startLifecycleAPI runs serve for the submission tests, the tenant's
// profile set, with the typed client.
func startLifecycleAPI(t *testing.T, dsn string, args ...string) (*service, *client.Client) {
	t.Helper()
	svc := startService(t, dsn, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0", "--sandbox-faults"}, args...)...)
	c := svc.api(t, svc.DemoKey)
	p, err := c.Profile.Update(t.Context(), profileOf(t, sampleProfile()), nil)
	must(t, p, err)
	return svc, c
}

// typedBody is a request body written as a map (the shared samples of the
// package) as the client's type T, for a typed call. The test ends when T
// cannot carry the body as it is (a field the client lacks or names
// otherwise, a value it changes): the request would not be the sample.
func typedBody[T any](t *testing.T, body map[string]any) *T {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("encode %v: %v", body, err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%T cannot carry %s: %v", v, raw, err)
	}
	back, err := json.Marshal(&v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	var want, got map[string]any
	if err := errors.Join(json.Unmarshal(raw, &want), json.Unmarshal(back, &got)); err != nil {
		t.Fatalf("decode %T: %v", v, err)
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Fatalf("%T sends %s as %v, the sample has %v: a gap of the client", v, k, got[k], w)
		}
	}
	return &v
}

// docOf is typedBody of a document of the kind (which Create needs).
func docOf(t *testing.T, kind client.DocumentType, body map[string]any) *client.Document {
	t.Helper()
	d := typedBody[client.Document](t, body)
	d.Type = kind
	return d
}

// partyOf is typedBody of a buyer or an on-behalf seller.
func partyOf(t *testing.T, body map[string]any) *client.Party {
	t.Helper()
	return typedBody[client.Party](t, body)
}

// profileOf is typedBody of the tenant's profile.
func profileOf(t *testing.T, body map[string]any) *client.Profile {
	t.Helper()
	return typedBody[client.Profile](t, body)
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

// readyInvoiceDoc is readyInvoice through the typed client.
func readyInvoiceDoc(t *testing.T, c *client.Client, serial, buyerID string) string {
	t.Helper()
	body := singleLineBody(serial)
	body["buyerId"] = buyerID
	d, err := c.Documents.Create(t.Context(), docOf(t, client.TypeInvoice, body))
	id := must(t, d, err).ID
	wantValidationPassed(t, c, serial, id)
	return id
}

// want200 checks that the service answered a submission 200, its outcome
// known (not a pending 202).
func want200(t *testing.T, sub *client.Submission) *client.Submission {
	t.Helper()
	if sub.Pending {
		t.Errorf("submit %s: 202 pending %+v, want 200", sub.ID, sub)
	}
	return sub
}

// waitStatusTyped is waitStatus through the typed client.
func waitStatusTyped(t *testing.T, c *client.Client, id string, want client.Status, within time.Duration) *client.SubmissionStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	var st *client.SubmissionStatus
	for {
		s, err := c.Documents.Status(t.Context(), id)
		st = must(t, s, err)
		if st.Status == want || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if st.Status != want {
		job := "no job"
		if st.Job != nil {
			job = fmt.Sprintf("job %+v", *st.Job)
		}
		t.Fatalf("document %s is %v after %s, want %s: %+v; %s", id, st.Status, within, want, st, job)
	}
	return st
}

// wantValidStatus is wantValid of a typed status result.
func wantValidStatus(t *testing.T, what string, st *client.SubmissionStatus) {
	t.Helper()
	uuid, long := st.DocumentUUID, st.DocumentLongID
	if len(uuid) != 26 || strings.ToUpper(uuid) != uuid || len(long) < 26 || st.ValidatedAt == nil {
		t.Errorf("%s: status = %+v, want a 26-character uuid, a long id and validated_at", what, st)
	}
	if u := st.ValidationURL; !strings.HasSuffix(u, "/"+uuid+"/share/"+long) {
		t.Errorf("%s: validation_url = %q, want .../%s/share/%s", what, u, uuid, long)
	}
}

// TestSubmitEveryKind takes a document of each kind, modelled on the
// authority's samples, from create to Valid; the notes refer to the
// authority's uuids of our Valid invoices.
func TestSubmitEveryKind(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := startLifecycleAPI(t, dsn)
		buyer, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		must(t, buyer, err)
		seller, err := c.Sellers.Create(ctx, partyOf(t, sampleSeller()))
		must(t, seller, err)
		for _, p := range []*client.Party{buyer, seller} {
			if !p.IsReady || p.TINCheck == nil || p.TINCheck.Status != client.TINVerified {
				t.Fatalf("party not ready with a verified TIN: %+v", p)
			}
		}
		uuids := map[string]string{} // serial -> authority uuid
		var serials []string
		for _, r := range realisticSet(buyer.ID, seller.ID) {
			info := kindInfo(t, r.kind)
			serial := str(r.body["invoiceSerialNumber"])
			serials = append(serials, serial)
			if refs, _ := r.body["documentReferences"].([]any); info.Note && len(refs) > 0 {
				ref := refs[0].(map[string]any)
				if u := uuids[str(ref["referenceNumber"])]; u != "" {
					ref["uuid"] = u // the authority's uuid of our Valid invoice
				}
			}
			created, err := c.Documents.Create(ctx, docOf(t, client.DocumentType(r.kind), r.body))
			if must(t, created, err).Type != client.DocumentType(r.kind) || created.TypeCode != info.TypeCode {
				t.Errorf("%s: created a %s (%s), want a %s (%s)", serial, created.Type, created.TypeCode, r.kind, info.TypeCode)
			}
			id := created.ID
			wantValidationPassed(t, c, serial, id)
			sub, err := c.Documents.Submit(ctx, id)
			want200(t, must(t, sub, err))
			if sub.Status != client.StatusSubmitted || len(sub.DocumentUUID) != 26 || sub.InvoiceCodeNumber != serial {
				t.Errorf("%s: submit = %+v, want Submitted with a uuid and the serial", serial, sub)
			}
			st := waitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
			wantValidStatus(t, serial, st)
			uuids[serial] = st.DocumentUUID
			if st.Job == nil || st.Job.State != "done" {
				t.Errorf("%s: Valid, but its job is %+v", serial, st.Job)
			}
			if link := st.ValidationURL; !strings.HasPrefix(link, svc.URL+"/sandbox/portal/") {
				t.Errorf("%s: validation_url %q, want the built-in sandbox's portal", serial, link)
			} else if resp, err := http.Get(link); err != nil || resp.StatusCode != 200 {
				t.Errorf("%s: GET %s: %v %v", serial, link, resp, err)
			} else {
				resp.Body.Close()
			}

			doc, err := c.Documents.Get(ctx, id)
			must(t, doc, err)
			var statuses []string
			for _, e := range doc.History {
				statuses = append(statuses, string(e.Status))
			}
			if got := strings.Join(statuses, ","); got != "draft,ready,submitting,Submitted,Valid" {
				t.Errorf("%s: history %s", serial, got)
			}
			supplierTIN := "C2584563200" // the tenant; the on-behalf seller on self-billed kinds
			if info.SelfBilled {
				supplierTIN = seller.TIN
			}
			if doc.Frozen == nil || doc.Frozen.Supplier.TIN != supplierTIN {
				t.Errorf("%s: frozen parties = %+v", serial, doc.Frozen)
			}
			if info.Consolidated && doc.Frozen != nil && doc.Frozen.Customer.TIN != einvoice.TINGeneralPublic {
				t.Errorf("%s: consolidated customer = %+v, want General Public", serial, doc.Frozen.Customer)
			}
			u, err := c.Documents.UBL(ctx, id)
			var ubl map[string]any
			if err == nil {
				err = json.Unmarshal(u, &ubl)
			}
			if err != nil || ublText(ubl, "Invoice", "ID") != serial || ublText(ubl, "Invoice", "InvoiceTypeCode") != info.TypeCode {
				t.Errorf("%s: UBL %v: %.300s", serial, err, u)
			}
			// Submitted documents are frozen: no edit, no second submit.
			_, err = c.Documents.Update(ctx, id, typedBody[client.Document](t, r.body))
			wantErr(t, err, 409, client.CodeDocumentNotDraft)
			_, err = c.Documents.Submit(ctx, id)
			wantErr(t, err, 409, client.CodeDocumentSubmitted)
		}
		svc.sandboxStats(t).sentOnce(t, serials...)
		// A later edit of the buyer changes no submitted UBL.
		renamed := partyOf(t, sampleBuyer())
		renamed.Name = "Renamed"
		p, err := c.Buyers.Update(ctx, buyer.ID, renamed)
		must(t, p, err)
		page, err := c.Documents.List(ctx, &client.DocumentListOptions{Status: client.StatusValid, ListOptions: client.ListOptions{PerPage: 100}})
		for _, d := range must(t, page, err).Items {
			u, err := c.Documents.UBL(ctx, d.ID)
			if strings.Contains(string(must(t, u, err)), "Renamed") {
				t.Errorf("%s: the UBL sent changed with the buyer", d.InvoiceSerialNumber)
			}
		}
	})
}

// TestSubmitRefused: what the authority refuses, at submission (422) or at
// validation (Invalid), carries its errors; an Invalid document can be
// corrected and submitted again.
func TestSubmitRefused(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := startLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		buyer := must(t, b, err).ID

		// The authority does not know a TIN: the buyer is not ready, and a
		// document to it does not validate.
		unknown := sampleBuyer()
		unknown["tin"] = "C99999999990"
		ub, err := c.Buyers.Create(ctx, partyOf(t, unknown))
		if must(t, ub, err).IsReady || ub.TINCheck == nil || ub.TINCheck.Status != client.TINNotFound || ub.ReadinessErrors["tin"] == nil {
			t.Errorf("buyer with an unknown TIN: %+v", ub)
		}
		unk := singleLineBody("INV-UNKNOWN-TIN")
		unk["buyerId"] = ub.ID
		d, err := c.Documents.Create(ctx, docOf(t, client.TypeInvoice, unk))
		wantValidationFailed(t, c, "unknown TIN", must(t, d, err).ID, problem{"PARTY_NOT_READY", "buyer.tin"})
		unknown["tin"] = "C99999999980" // corrected: known
		ub, err = c.Buyers.Update(ctx, ub.ID, partyOf(t, unknown))
		if !must(t, ub, err).IsReady {
			t.Errorf("corrected buyer: %+v", ub)
		}

		// A credit note on an invoice the authority does not know: accepted,
		// then found Invalid by its referenced-documents validator.
		note := noteOf(singleLineBody("CN-EXT-1"), "OLD-INV-9", "ABCDEFGHJKLMNPQRSTUVWXYZ12")
		note["buyerId"] = buyer
		d, err = c.Documents.Create(ctx, docOf(t, client.TypeCreditNote, note))
		id := must(t, d, err).ID
		wantValidationPassed(t, c, "CN-EXT-1", id)
		sub, err := c.Documents.Submit(ctx, id)
		want200(t, must(t, sub, err))
		st := waitStatusTyped(t, c, id, client.StatusInvalid, 20*time.Second)
		if errs := st.AuthorityErrors; len(errs) == 0 || !strings.Contains(strings.ToLower(fmt.Sprint(errs)), "referenc") {
			t.Errorf("Invalid note: authority_errors = %+v, want the referenced-document error", st.AuthorityErrors)
		}
		// Invalid is editable: correct it (pre-e-invoicing reference), validate, submit again.
		note["documentReferences"] = []any{map[string]any{"referenceNumber": "NA", "uuid": "NA"}}
		note["isPreEinvoicing"] = true
		d, err = c.Documents.Update(ctx, id, typedBody[client.Document](t, note))
		must(t, d, err)
		wantValidationPassed(t, c, "CN-EXT-1 corrected", id)
		sub, err = c.Documents.Submit(ctx, id)
		want200(t, must(t, sub, err))
		waitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)

		// As an intermediary acting for another taxpayer, documents of this
		// supplier are refused at submission: 422 with the authority's error.
		cur, err := c.Profile.Get(ctx)
		must(t, cur, err)
		p, err := c.Profile.Update(ctx, profileOf(t, sampleProfile()), &client.AuthorityUpdate{Environment: "sandbox",
			Mode: "intermediary", OnBehalfOf: "C1111111110", ClientID: cur.Authority.ClientID})
		must(t, p, err)
		inv := readyInvoiceDoc(t, c, "INV-IM-1", buyer)
		_, err = c.Documents.Submit(ctx, inv)
		if e := wantErr(t, err, 422, client.CodeAuthorityRejected); len(e.Authority) == 0 {
			t.Errorf("422 without errors.authority: %s", e.Body)
		}
		refused, err := c.Documents.Get(ctx, inv)
		if len(must(t, refused, err).History) == 0 {
			t.Fatalf("document %s has no history", inv)
		}
		if refused.Status != client.StatusInvalid {
			t.Errorf("refused document is %s, want Invalid", refused.Status)
		}
	})
}

// TestSubmitTwice: a document is sent once, however often and however
// concurrently it is submitted.
func TestSubmitTwice(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := startLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		buyer := must(t, b, err).ID
		one := readyInvoiceDoc(t, c, "INV-TWICE-1", buyer)
		sub, err := c.Documents.Submit(ctx, one)
		want200(t, must(t, sub, err))
		_, err = c.Documents.Submit(ctx, one)
		wantErr(t, err, 409, client.CodeDocumentSubmitted)

		// alreadySubmitted reports whether err is the 409 of a document
		// already submitted.
		alreadySubmitted := func(err error) bool {
			var e *client.Error
			return errors.As(err, &e) && e.StatusCode == 409 && e.Code == client.CodeDocumentSubmitted
		}
		many := readyInvoiceDoc(t, c, "INV-TWICE-20", buyer)
		var ok200, ok202, conflict atomic.Int32
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				sub, err := c.Documents.Submit(ctx, many)
				switch {
				case err == nil && !sub.Pending:
					ok200.Add(1)
				case err == nil:
					ok202.Add(1)
				case alreadySubmitted(err):
					conflict.Add(1)
				default:
					t.Errorf("concurrent submit: %v", err)
				}
			})
		}
		wg.Wait()
		if ok200.Load() != 1 {
			t.Errorf("20 concurrent submits: %d answered 200, %d 202, %d 409; want exactly one 200", ok200.Load(), ok202.Load(), conflict.Load())
		}
		waitStatusTyped(t, c, many, client.StatusValid, 20*time.Second)

		// Pairs racing on one document each: the loser answers from
		// committed state (202 or 409), never a false 422 (on SQLite the
		// group commit once answered the loser before the winner's commit).
		var pairs []string
		for i := range 20 {
			doc := readyInvoiceDoc(t, c, fmt.Sprintf("INV-PAIR-%02d", i), buyer)
			pairs = append(pairs, doc)
			for range 2 {
				wg.Go(func() {
					// 200 or 202 (err nil), or the 409.
					if _, err := c.Documents.Submit(ctx, doc); err != nil && !alreadySubmitted(err) {
						t.Errorf("racing pair on %s: %v", doc, err)
					}
				})
			}
		}
		wg.Wait()
		for _, doc := range pairs {
			waitStatusTyped(t, c, doc, client.StatusValid, 20*time.Second)
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
		ctx := t.Context()
		svc, c := startLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		buyer := must(t, b, err).ID
		var ids, serials []string
		for i := range 90 {
			serial := fmt.Sprintf("INV-BULK-%03d", i)
			body := singleLineBody(serial)
			body["buyerId"] = buyer
			d, err := c.Documents.Create(ctx, docOf(t, client.TypeInvoice, body))
			id := must(t, d, err).ID
			res, err := c.Documents.Validate(ctx, id)
			must(t, res, err)
			ids, serials = append(ids, id), append(serials, serial)
		}
		var drafts []string
		for i := range 6 {
			body := singleLineBody(fmt.Sprintf("INV-DRAFT-%d", i))
			body["buyerId"] = buyer
			d, err := c.Documents.Create(ctx, docOf(t, client.TypeInvoice, body))
			drafts = append(drafts, must(t, d, err).ID) // not validated: draft
		}
		unknown := []string{"01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002", "not-an-id", "01900000-0000-7000-8000-000000000003"}
		all := append(append(append([]string{}, ids...), drafts...), unknown...)
		if len(all) != 100 {
			t.Fatalf("built %d ids", len(all))
		}
		res, err := c.Documents.SubmitBulk(ctx, all)
		must(t, res, err)
		if len(res.Accepted) != 90 || len(res.Rejected) != 10 || len(res.SubmissionUIDs) != 1 {
			t.Fatalf("bulk: %d accepted, %d rejected, %d submissions; want 90, 10, 1: %+v",
				len(res.Accepted), len(res.Rejected), len(res.SubmissionUIDs), res)
		}
		codes := map[string]int{}
		for _, r := range res.Rejected {
			codes[r.ErrorCode]++
		}
		if codes[client.CodeDocumentNotReady] != 6 || codes[client.CodeDocumentNotFound] != 4 {
			t.Errorf("rejected codes = %v, want 6 DOCUMENT_NOT_READY and 4 DOCUMENT_NOT_FOUND", codes)
		}
		for _, id := range ids {
			waitStatusTyped(t, c, id, client.StatusValid, 30*time.Second)
		}
		svc.sandboxStats(t).sentOnce(t, serials...)
		// Bounds: none, more than 100.
		_, err = c.Documents.SubmitBulk(ctx, []string{})
		wantErr(t, err, 422, client.CodeValidationFailed)
		_, err = c.Documents.SubmitBulk(ctx, append(all, ids[0]))
		wantErr(t, err, 422, client.CodeValidationFailed)
	})
}

// TestSubmitBulkDuplicateIDs: an id given more than once in a bulk request
// is processed at its first occurrence, whatever becomes of it there, and
// each later occurrence is listed in rejected with DUPLICATE_ID.
func TestSubmitBulkDuplicateIDs(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := startLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		buyer := must(t, b, err).ID
		ready := readyInvoiceDoc(t, c, "INV-DUP-1", buyer)
		body := singleLineBody("INV-DUP-DRAFT")
		body["buyerId"] = buyer
		dd, err := c.Documents.Create(ctx, docOf(t, client.TypeInvoice, body))
		draft := must(t, dd, err).ID
		unknown := "01900000-0000-7000-8000-000000000009"

		ids := []string{ready, draft, ready, unknown, draft, ready, unknown}
		res, err := c.Documents.SubmitBulk(ctx, ids)
		must(t, res, err)
		if len(res.Accepted) != 1 || res.Accepted[0].ID != ready {
			t.Fatalf("accepted = %+v, want only %s, once", res.Accepted, ready)
		}
		type rejection struct{ id, code string }
		var got []rejection
		for _, r := range res.Rejected {
			if r.Message == "" {
				t.Errorf("rejected entry without a message: %+v", r)
			}
			got = append(got, rejection{r.ID, r.ErrorCode})
		}
		// Rejections are listed in the order of the request.
		want := []rejection{{draft, "DOCUMENT_NOT_READY"}, {ready, "DUPLICATE_ID"}, {unknown, "DOCUMENT_NOT_FOUND"},
			{draft, "DUPLICATE_ID"}, {ready, "DUPLICATE_ID"}, {unknown, "DUPLICATE_ID"}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("rejected = %v\nwant       %v", got, want)
		}
		if len(res.Pending) != 0 {
			t.Errorf("pending = %+v, want none", res.Pending)
		}
		waitStatusTyped(t, c, ready, client.StatusValid, 20*time.Second)
		svc.sandboxStats(t).sentOnce(t, "INV-DUP-1")
		d, err := c.Documents.Get(ctx, draft)
		if must(t, d, err).Status != client.StatusDraft {
			t.Errorf("the draft given twice is %v, want draft", d.Status)
		}

		// A request of one id given twice: the first goes in, the second is
		// a duplicate, although the first was already submitted by then.
		again := readyInvoiceDoc(t, c, "INV-DUP-2", buyer)
		res, err = c.Documents.SubmitBulk(ctx, []string{again, again})
		must(t, res, err)
		if len(res.Accepted) != 1 || len(res.Rejected) != 1 || res.Rejected[0].ErrorCode != client.CodeDuplicateID {
			t.Errorf("[id, id]: accepted %+v, rejected %+v; want the id accepted once and rejected once as DUPLICATE_ID", res.Accepted, res.Rejected)
		}
	})
}

// TestSubmitSigned: a tenant with a certificate sends version 1.1 documents,
// signed; the sandbox verifies the signature and finds them Valid.
func TestSubmitSigned(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := startLifecycleAPI(t, dsn)
		cert, key := sandboxCert(t, dsn, "Supplier's Name", sampleSupplier().TIN)
		cur, err := c.Profile.Get(ctx)
		must(t, cur, err)
		p, err := c.Profile.Update(ctx, profileOf(t, sampleProfile()), &client.AuthorityUpdate{Environment: "sandbox",
			Mode: "taxpayer", ClientID: cur.Authority.ClientID, CertificatePEM: cert, PrivateKeyPEM: key})
		must(t, p, err)
		b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		buyer := must(t, b, err).ID
		id := readyInvoiceDoc(t, c, "INV-SIGNED-1", buyer)
		sub, err := c.Documents.Submit(ctx, id)
		want200(t, must(t, sub, err))
		waitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
		u, err := c.Documents.UBL(ctx, id)
		if err := dsig.Verify(must(t, u, err)); err != nil {
			t.Errorf("the UBL sent does not verify: %v", err)
		}
		d, err := c.Documents.Get(ctx, id)
		if must(t, d, err).Authority == nil || d.Authority.Version != "1.1" {
			t.Errorf("version of %+v, want 1.1", d.Authority)
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
	sandboxDB := testdb.SQLite(t)
	go func() {
		done <- m.Run(ctx, []string{"sandbox", "--addr", "127.0.0.1:0", "--db", sandboxDB, "--sandbox-delay", "0", "--sandbox-faults"})
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
	svc, c := startLifecycleAPI(t, testdb.SQLite(t), "--authority-url", authority, "--portal-url", authority+"/portal")
	// The separate sandbox knows only the clients registered with it.
	prof := profileOf(t, sampleProfile())
	clientID, secret := sandboxClient(t, sandboxDB, prof.TIN)
	if _, err := c.Profile.Update(t.Context(), prof, &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer", ClientID: clientID, ClientSecret: secret}); err != nil {
		t.Fatal(err)
	}
	b, err := c.Buyers.Create(t.Context(), partyOf(t, sampleBuyer()))
	buyer := must(t, b, err).ID
	id := readyInvoiceDoc(t, c, "INV-APART-1", buyer)
	sub, err := c.Documents.Submit(t.Context(), id)
	want200(t, must(t, sub, err))
	st := waitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
	link := st.ValidationURL
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
	ctx := t.Context()
	dsn := testdb.SQLite(t)
	svc, c := startLifecycleAPI(t, dsn)
	b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
	buyer := must(t, b, err).ID
	id := readyInvoiceDoc(t, c, "INV-REJECT-1", buyer)
	sub, err := c.Documents.Submit(ctx, id)
	want200(t, must(t, sub, err))
	uuid := waitStatusTyped(t, c, id, client.StatusValid, 20*time.Second).DocumentUUID

	// The buyer, at the authority: a sandbox client bound to the buyer's
	// TIN (the built-in sandbox's clients live in the service's database).
	buyerID, buyerSecret := sandboxClient(t, dsn, partyOf(t, sampleBuyer()).TIN)
	form := url.Values{"client_id": {buyerID}, "client_secret": {buyerSecret}, "grant_type": {"client_credentials"}, "scope": {"InvoicingAPI"}}.Encode()
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

	st, err := c.Documents.Status(ctx, id)
	must(t, st, err)
	if rr := st.RejectionRequested; st.Status != client.StatusValid || rr == nil || rr.Reason != "Wrong quantity delivered" || rr.CancelBefore.IsZero() {
		t.Errorf("status after a rejection request: %+v (rejection %+v)", st, rr)
	}
	doc, err := c.Documents.Get(ctx, id)
	if a := must(t, doc, err).Authority; a == nil || a.RejectionRequested == nil {
		t.Errorf("the document does not show the rejection request: %+v", a)
	}
	cancelled, err := c.Documents.Cancel(ctx, id, "Rejected by the buyer")
	must(t, cancelled, err)
}

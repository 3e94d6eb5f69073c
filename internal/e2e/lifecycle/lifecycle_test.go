package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testscale"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/cli"
	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// The lifecycle tests run the whole service with its built-in sandbox over
// real HTTP: the sandbox validates at once (--sandbox-delay 0) and its
// fault switches and counts are on (--sandbox-faults).

// TestSubmitEveryKind takes a document of each kind, modelled on the
// authority's samples, from create to Valid; the notes refer to the
// authority's uuids of our Valid invoices.
func TestSubmitEveryKind(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		buyer, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		e2etest.Must(t, buyer, err)
		seller, err := c.Sellers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleSeller()))
		e2etest.Must(t, seller, err)
		for _, p := range []*client.Party{buyer, seller} {
			if !p.IsReady || p.TINCheck == nil || p.TINCheck.Status != client.TINVerified {
				t.Fatalf("party not ready with a verified TIN: %+v", p)
			}
		}
		uuids := map[string]string{} // serial -> authority uuid
		var serials []string
		for _, r := range e2etest.RealisticSet(buyer.ID, seller.ID) {
			info := e2etest.KindInfo(t, r.Kind)
			serial := e2etest.Str(r.Body["invoiceSerialNumber"])
			serials = append(serials, serial)
			if refs, _ := r.Body["documentReferences"].([]any); info.Note && len(refs) > 0 {
				ref := refs[0].(map[string]any)
				if u := uuids[e2etest.Str(ref["referenceNumber"])]; u != "" {
					ref["uuid"] = u // the authority's uuid of our Valid invoice
				}
			}
			created, err := c.Documents.Create(ctx, e2etest.DocOf(t, client.DocumentType(r.Kind), r.Body))
			if e2etest.Must(t, created, err).Type != client.DocumentType(r.Kind) || created.TypeCode != info.TypeCode {
				t.Errorf("%s: created a %s (%s), want a %s (%s)", serial, created.Type, created.TypeCode, r.Kind, info.TypeCode)
			}
			id := created.ID
			e2etest.WantValidationPassed(t, c, serial, id)
			sub, err := c.Documents.Submit(ctx, id)
			e2etest.Want200(t, e2etest.Must(t, sub, err))
			if sub.Status != client.StatusSubmitted || len(sub.DocumentUUID) != 26 || sub.InvoiceCodeNumber != serial {
				t.Errorf("%s: submit = %+v, want Submitted with a uuid and the serial", serial, sub)
			}
			st := e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
			e2etest.WantValidStatus(t, serial, st)
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
			e2etest.Must(t, doc, err)
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
			if err != nil || e2etest.UBLText(ubl, "Invoice", "ID") != serial || e2etest.UBLText(ubl, "Invoice", "InvoiceTypeCode") != info.TypeCode {
				t.Errorf("%s: UBL %v: %.300s", serial, err, u)
			}
			// Submitted documents are frozen: no edit, no second submit.
			_, err = c.Documents.Update(ctx, id, e2etest.TypedBody[client.Document](t, r.Body))
			e2etest.WantErr(t, err, 409, client.CodeDocumentNotDraft)
			_, err = c.Documents.Submit(ctx, id)
			e2etest.WantErr(t, err, 409, client.CodeDocumentSubmitted)
		}
		svc.SandboxStats(t).SentOnce(t, serials...)
		// A later edit of the buyer changes no submitted UBL.
		renamed := e2etest.PartyOf(t, e2etest.SampleBuyer())
		renamed.Name = "Renamed"
		p, err := c.Buyers.Update(ctx, buyer.ID, renamed)
		e2etest.Must(t, p, err)
		page, err := c.Documents.List(ctx, &client.DocumentListOptions{Status: client.StatusValid, ListOptions: client.ListOptions{PerPage: 100}})
		for _, d := range e2etest.Must(t, page, err).Items {
			u, err := c.Documents.UBL(ctx, d.ID)
			if strings.Contains(string(e2etest.Must(t, u, err)), "Renamed") {
				t.Errorf("%s: the UBL sent changed with the buyer", d.InvoiceSerialNumber)
			}
		}
	})
}

// TestSubmitRefused: what the authority refuses, at submission (422) or at
// validation (Invalid), carries its errors; an Invalid document can be
// corrected and submitted again.
func TestSubmitRefused(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := e2etest.StartLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID

		// The authority does not know a TIN: the buyer is not ready, and a
		// document to it does not validate.
		unknown := e2etest.SampleBuyer()
		unknown["tin"] = "C99999999990"
		ub, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, unknown))
		if e2etest.Must(t, ub, err).IsReady || ub.TINCheck == nil || ub.TINCheck.Status != client.TINNotFound || ub.ReadinessErrors["tin"] == nil {
			t.Errorf("buyer with an unknown TIN: %+v", ub)
		}
		unk := e2etest.SingleLineBody("INV-UNKNOWN-TIN")
		unk["buyerId"] = ub.ID
		d, err := c.Documents.Create(ctx, e2etest.DocOf(t, client.TypeInvoice, unk))
		e2etest.WantValidationFailed(t, c, "unknown TIN", e2etest.Must(t, d, err).ID, e2etest.Problem{Rule: "PARTY_NOT_READY", Field: "buyer.tin"})
		unknown["tin"] = "C99999999980" // corrected: known
		ub, err = c.Buyers.Update(ctx, ub.ID, e2etest.PartyOf(t, unknown))
		if !e2etest.Must(t, ub, err).IsReady {
			t.Errorf("corrected buyer: %+v", ub)
		}

		// A credit note on an invoice the authority does not know: accepted,
		// then found Invalid by its referenced-documents validator.
		note := e2etest.NoteOf(e2etest.SingleLineBody("CN-EXT-1"), "OLD-INV-9", "ABCDEFGHJKLMNPQRSTUVWXYZ12")
		note["buyerId"] = buyer
		d, err = c.Documents.Create(ctx, e2etest.DocOf(t, client.TypeCreditNote, note))
		id := e2etest.Must(t, d, err).ID
		e2etest.WantValidationPassed(t, c, "CN-EXT-1", id)
		sub, err := c.Documents.Submit(ctx, id)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		st := e2etest.WaitStatusTyped(t, c, id, client.StatusInvalid, 20*time.Second)
		if errs := st.AuthorityErrors; len(errs) == 0 || !strings.Contains(strings.ToLower(fmt.Sprint(errs)), "referenc") {
			t.Errorf("Invalid note: authority_errors = %+v, want the referenced-document error", st.AuthorityErrors)
		}
		// Invalid is editable: correct it (pre-e-invoicing reference), validate, submit again.
		note["documentReferences"] = []any{map[string]any{"referenceNumber": "NA", "uuid": "NA"}}
		note["isPreEinvoicing"] = true
		d, err = c.Documents.Update(ctx, id, e2etest.TypedBody[client.Document](t, note))
		e2etest.Must(t, d, err)
		e2etest.WantValidationPassed(t, c, "CN-EXT-1 corrected", id)
		sub, err = c.Documents.Submit(ctx, id)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)

		// As an intermediary acting for another taxpayer, documents of this
		// supplier are refused at submission: 422 with the authority's error.
		cur, err := c.Profile.Get(ctx)
		e2etest.Must(t, cur, err)
		p, err := c.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), &client.AuthorityUpdate{Environment: "sandbox",
			Mode: "intermediary", OnBehalfOf: "C1111111110", ClientID: cur.Authority.ClientID})
		e2etest.Must(t, p, err)
		inv := e2etest.ReadyInvoiceDoc(t, c, "INV-IM-1", buyer)
		_, err = c.Documents.Submit(ctx, inv)
		if e := e2etest.WantErr(t, err, 422, client.CodeAuthorityRejected); len(e.Authority) == 0 {
			t.Errorf("422 without errors.authority: %s", e.Body)
		}
		refused, err := c.Documents.Get(ctx, inv)
		if len(e2etest.Must(t, refused, err).History) == 0 {
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
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		one := e2etest.ReadyInvoiceDoc(t, c, "INV-TWICE-1", buyer)
		sub, err := c.Documents.Submit(ctx, one)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		_, err = c.Documents.Submit(ctx, one)
		e2etest.WantErr(t, err, 409, client.CodeDocumentSubmitted)

		// alreadySubmitted reports whether err is the 409 of a document
		// already submitted.
		alreadySubmitted := func(err error) bool {
			var e *client.Error
			return errors.As(err, &e) && e.StatusCode == 409 && e.Code == client.CodeDocumentSubmitted
		}
		many := e2etest.ReadyInvoiceDoc(t, c, "INV-TWICE-20", buyer)
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
		e2etest.WaitStatusTyped(t, c, many, client.StatusValid, 20*time.Second)

		// Pairs racing on one document each: the loser answers from
		// committed state (202 or 409), never a false 422 (on SQLite the
		// group commit once answered the loser before the winner's commit).
		var pairs []string
		for i := range 20 {
			doc := e2etest.ReadyInvoiceDoc(t, c, fmt.Sprintf("INV-PAIR-%02d", i), buyer)
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
			e2etest.WaitStatusTyped(t, c, doc, client.StatusValid, 20*time.Second)
		}
		serials := []string{"INV-TWICE-1", "INV-TWICE-20"}
		for i := range pairs {
			serials = append(serials, fmt.Sprintf("INV-PAIR-%02d", i))
		}
		svc.SandboxStats(t).SentOnce(t, serials...)
	})
}

// TestScaleSubmitBulk: 100 ids, some not ready or unknown; the ready ones go in
// one submission and end Valid.
func TestScaleSubmitBulk(t *testing.T) {
	testscale.Mark(t)
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		var ids, serials []string
		for i := range 90 {
			serial := fmt.Sprintf("INV-BULK-%03d", i)
			body := e2etest.SingleLineBody(serial)
			body["buyerId"] = buyer
			d, err := c.Documents.Create(ctx, e2etest.DocOf(t, client.TypeInvoice, body))
			id := e2etest.Must(t, d, err).ID
			res, err := c.Documents.Validate(ctx, id)
			e2etest.Must(t, res, err)
			ids, serials = append(ids, id), append(serials, serial)
		}
		var drafts []string
		for i := range 6 {
			body := e2etest.SingleLineBody(fmt.Sprintf("INV-DRAFT-%d", i))
			body["buyerId"] = buyer
			d, err := c.Documents.Create(ctx, e2etest.DocOf(t, client.TypeInvoice, body))
			drafts = append(drafts, e2etest.Must(t, d, err).ID) // not validated: draft
		}
		unknown := []string{"01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002", "not-an-id", "01900000-0000-7000-8000-000000000003"}
		all := append(append(append([]string{}, ids...), drafts...), unknown...)
		if len(all) != 100 {
			t.Fatalf("built %d ids", len(all))
		}
		res, err := c.Documents.SubmitBulk(ctx, all)
		e2etest.Must(t, res, err)
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
			e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 30*time.Second)
		}
		svc.SandboxStats(t).SentOnce(t, serials...)
		// Bounds: none, more than 100.
		_, err = c.Documents.SubmitBulk(ctx, []string{})
		e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
		_, err = c.Documents.SubmitBulk(ctx, append(all, ids[0]))
		e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
	})
}

// TestSubmitBulkDuplicateIDs: an id given more than once in a bulk request
// is processed at its first occurrence, whatever becomes of it there, and
// each later occurrence is listed in rejected with DUPLICATE_ID.
func TestSubmitBulkDuplicateIDs(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		ready := e2etest.ReadyInvoiceDoc(t, c, "INV-DUP-1", buyer)
		body := e2etest.SingleLineBody("INV-DUP-DRAFT")
		body["buyerId"] = buyer
		dd, err := c.Documents.Create(ctx, e2etest.DocOf(t, client.TypeInvoice, body))
		draft := e2etest.Must(t, dd, err).ID
		unknown := "01900000-0000-7000-8000-000000000009"

		ids := []string{ready, draft, ready, unknown, draft, ready, unknown}
		res, err := c.Documents.SubmitBulk(ctx, ids)
		e2etest.Must(t, res, err)
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
		e2etest.WaitStatusTyped(t, c, ready, client.StatusValid, 20*time.Second)
		svc.SandboxStats(t).SentOnce(t, "INV-DUP-1")
		d, err := c.Documents.Get(ctx, draft)
		if e2etest.Must(t, d, err).Status != client.StatusDraft {
			t.Errorf("the draft given twice is %v, want draft", d.Status)
		}

		// A request of one id given twice: the first goes in, the second is
		// a duplicate, although the first was already submitted by then.
		again := e2etest.ReadyInvoiceDoc(t, c, "INV-DUP-2", buyer)
		res, err = c.Documents.SubmitBulk(ctx, []string{again, again})
		e2etest.Must(t, res, err)
		if len(res.Accepted) != 1 || len(res.Rejected) != 1 || res.Rejected[0].ErrorCode != client.CodeDuplicateID {
			t.Errorf("[id, id]: accepted %+v, rejected %+v; want the id accepted once and rejected once as DUPLICATE_ID", res.Accepted, res.Rejected)
		}
	})
}

// TestSubmitSigned: a tenant with a certificate sends version 1.1 documents,
// signed; the sandbox verifies the signature and finds them Valid.
func TestSubmitSigned(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := e2etest.StartLifecycleAPI(t, dsn)
		cert, key := e2etest.SandboxCert(t, dsn, "Supplier's Name", e2etest.SampleSupplier().TIN)
		cur, err := c.Profile.Get(ctx)
		e2etest.Must(t, cur, err)
		p, err := c.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), &client.AuthorityUpdate{Environment: "sandbox",
			Mode: "taxpayer", ClientID: cur.Authority.ClientID, CertificatePEM: cert, PrivateKeyPEM: key})
		e2etest.Must(t, p, err)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		id := e2etest.ReadyInvoiceDoc(t, c, "INV-SIGNED-1", buyer)
		sub, err := c.Documents.Submit(ctx, id)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
		u, err := c.Documents.UBL(ctx, id)
		if err := dsig.Verify(e2etest.Must(t, u, err)); err != nil {
			t.Errorf("the UBL sent does not verify: %v", err)
		}
		d, err := c.Documents.Get(ctx, id)
		if e2etest.Must(t, d, err).Authority == nil || d.Authority.Version != "1.1" {
			t.Errorf("version of %+v, want 1.1", d.Authority)
		}
	})
}

// TestSeparateSandbox: `einvoice sandbox` runs as its own process with its
// own database, and the service reaches it with --authority-url.
func TestSeparateSandbox(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan int, 1)
	m := &cli.Main{Stdout: &servetest.Buffer{}, Stderr: &servetest.Buffer{}, Ready: ready,
		Getenv: servetest.Env(map[string]string{"EINVOICE_SECRET_KEY": servetest.SecretKey, "EINVOICE_LOG_LEVEL": "warn"})}
	sandboxDB := migrated.SQLite(t)
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
	svc, c := e2etest.StartLifecycleAPI(t, migrated.SQLite(t), "--authority-url", authority, "--portal-url", authority+"/portal")
	// The separate sandbox knows only the clients registered with it.
	prof := e2etest.ProfileOf(t, e2etest.SampleProfile())
	clientID, secret := e2etest.SandboxClient(t, sandboxDB, prof.TIN)
	if _, err := c.Profile.Update(t.Context(), prof, &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer", ClientID: clientID, ClientSecret: secret}); err != nil {
		t.Fatal(err)
	}
	b, err := c.Buyers.Create(t.Context(), e2etest.PartyOf(t, e2etest.SampleBuyer()))
	buyer := e2etest.Must(t, b, err).ID
	id := e2etest.ReadyInvoiceDoc(t, c, "INV-APART-1", buyer)
	sub, err := c.Documents.Submit(t.Context(), id)
	e2etest.Want200(t, e2etest.Must(t, sub, err))
	st := e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
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
	var stats e2etest.SandboxStats
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	stats.SentOnce(t, "INV-APART-1")
}

// TestRejectionRequest: the buyer asks the authority to reject a Valid
// document; the status shows it, the document stays Valid, and the tenant
// can still cancel it.
func TestRejectionRequest(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := migrated.SQLite(t)
	svc, c := e2etest.StartLifecycleAPI(t, dsn)
	b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
	buyer := e2etest.Must(t, b, err).ID
	id := e2etest.ReadyInvoiceDoc(t, c, "INV-REJECT-1", buyer)
	sub, err := c.Documents.Submit(ctx, id)
	e2etest.Want200(t, e2etest.Must(t, sub, err))
	uuid := e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second).DocumentUUID

	// The buyer, at the authority: a sandbox client bound to the buyer's
	// TIN (the built-in sandbox's clients live in the service's database).
	buyerID, buyerSecret := e2etest.SandboxClient(t, dsn, e2etest.PartyOf(t, e2etest.SampleBuyer()).TIN)
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
	e2etest.Must(t, st, err)
	if rr := st.RejectionRequested; st.Status != client.StatusValid || rr == nil || rr.Reason != "Wrong quantity delivered" || rr.CancelBefore.IsZero() {
		t.Errorf("status after a rejection request: %+v (rejection %+v)", st, rr)
	}
	doc, err := c.Documents.Get(ctx, id)
	if a := e2etest.Must(t, doc, err).Authority; a == nil || a.RejectionRequested == nil {
		t.Errorf("the document does not show the rejection request: %+v", a)
	}
	cancelled, err := c.Documents.Cancel(ctx, id, "Rejected by the buyer")
	e2etest.Must(t, cancelled, err)
}

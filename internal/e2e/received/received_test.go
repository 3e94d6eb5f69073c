package received

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testclock"
)

// receivingPair readies the demo tenant (A) to issue and a second tenant
// (B, receivedTIN) to receive: their profiles, and A's buyer that is B;
// it returns A's client, B's key and that buyer.
func receivingPair(t *testing.T, svc *e2etest.Service, dsn string) (a *client.Client, keyB string, buyer *client.Party) {
	t.Helper()
	ctx := t.Context()
	a = svc.API(t, svc.DemoKey)
	prof, err := a.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), nil)
	e2etest.Must(t, prof, err)
	_, keyB = e2etest.SecTenant(t, dsn, "Buyer's Name", e2etest.ReceivedTIN)
	b := svc.API(t, keyB)
	profB := e2etest.SampleProfile()
	profB["tin"], profB["idType"], profB["idValue"], profB["name"] = e2etest.ReceivedTIN, "BRN", "201901234567", "Buyer's Name"
	pb, err := b.Profile.Update(ctx, e2etest.ProfileOf(t, profB), nil)
	e2etest.Must(t, pb, err)
	buyer, err = a.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
	return a, keyB, e2etest.Must(t, buyer, err)
}

// TestReceivedDocuments: tenant A issues invoices, notes and a self-billed
// invoice to tenant B's TIN on the built-in sandbox; B's poller finds each
// once, with the amounts A's documents carry, also across a restart and
// with two replicas polling; B rejects one within the window (A sees the
// rejection request), is refused after it (injected clock); A cancels one
// and B's copy turns Cancelled; the events arrive.
func TestReceivedDocuments(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		clock := &testclock.Clock{}
		svc := e2etest.StartServiceAt(t, dsn, clock.Now, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, e2etest.ReceivedArgs...)...)
		keyA := svc.DemoKey
		a, keyB, buyer := receivingPair(t, svc, dsn)
		b := svc.API(t, keyB)
		sellerBody := e2etest.SampleSeller()
		sellerBody["tin"], sellerBody["idValue"], sellerBody["name"] = e2etest.ReceivedTIN, "201901234567", "Buyer's Name"
		seller, err := a.Sellers.Create(ctx, e2etest.PartyOf(t, sellerBody))
		e2etest.Must(t, seller, err)

		// A's documents: those to B (every kind but the consolidated
		// invoice, which goes to the General Public).
		uuids := map[string]string{}   // serial -> authority uuid
		payable := map[string]string{} // authority uuid -> payable
		ids := map[string]string{}     // authority uuid -> A's document id
		for _, r := range e2etest.RealisticSet(buyer.ID, seller.ID) {
			info := e2etest.KindInfo(t, r.Kind)
			if info.Consolidated {
				continue
			}
			serial := e2etest.Str(r.Body["invoiceSerialNumber"])
			if refs, _ := r.Body["documentReferences"].([]any); info.Note && len(refs) > 0 {
				ref := refs[0].(map[string]any)
				if u := uuids[e2etest.Str(ref["referenceNumber"])]; u != "" {
					ref["uuid"] = u
				}
			}
			d, err := a.Documents.Create(ctx, e2etest.DocOf(t, client.DocumentType(r.Kind), r.Body))
			id := e2etest.Must(t, d, err).ID
			e2etest.WantValidationPassed(t, a, serial, id)
			sub, err := a.Documents.Submit(ctx, id)
			e2etest.Want200(t, e2etest.Must(t, sub, err))
			st := e2etest.WaitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
			uuids[serial], payable[st.DocumentUUID], ids[st.DocumentUUID] = st.DocumentUUID, r.Payable, id
		}
		if len(payable) < 5 {
			t.Fatalf("only %d documents to B", len(payable))
		}

		got := e2etest.WaitReceived(t, b, 60*time.Second, "B receives A's documents", func(ds []client.ReceivedDocument) bool { return len(ds) >= len(payable) })
		checkReceived := func(got []client.ReceivedDocument) {
			t.Helper()
			seen := map[string]int{}
			for _, d := range got {
				seen[d.UUID]++
				want, ok := payable[d.UUID]
				if !ok {
					t.Errorf("B received %s, not one of A's documents to it", d.UUID)
					continue
				}
				if !d.Parsed || d.Totals.Payable == nil || string(*d.Totals.Payable) != want || d.Issuer.TIN != "C2584563200" && d.Issuer.TIN != e2etest.ReceivedTIN || len(d.Lines) == 0 ||
					d.Currency == "" || d.DocumentType == "" || d.RejectableUntil == nil {
					t.Errorf("received %s: %+v, want parsed with payable %s", d.UUID, d, want)
				}
			}
			for u := range payable {
				if seen[u] != 1 {
					t.Errorf("document %s received %d times, want once", u, seen[u])
				}
			}
		}
		checkReceived(got)

		// One of them in full: get (by id and by uuid), its UBL.
		first := got[0]
		one, err := b.ReceivedDocuments.Get(ctx, first.ID)
		if e2etest.Must(t, one, err).UUID != first.UUID || one.Status != "Valid" || !one.Rejectable {
			t.Errorf("get %s: %+v", first.ID, one)
		}
		byUUID, err := b.ReceivedDocuments.Get(ctx, first.UUID)
		if e2etest.Must(t, byUUID, err).ID != first.ID {
			t.Errorf("get by uuid: %+v", byUUID)
		}
		raw, err := b.ReceivedDocuments.UBL(ctx, first.ID)
		var ubl map[string]any
		if err == nil {
			err = json.Unmarshal(raw, &ubl)
		}
		if err != nil || e2etest.UBLText(ubl, "Invoice", "ID") != first.Number {
			t.Errorf("received UBL: %v %.200s", err, raw)
		}
		file, err := b.ReceivedDocuments.PDF(ctx, first.ID)
		if e2etest.Must(t, file, err); !strings.HasPrefix(string(file.Data), "%PDF-") || file.Filename != first.Number+".pdf" {
			t.Errorf("received PDF: %q %.20q", file.Filename, file.Data)
		}
		// Search and filters.
		page, err := b.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Search: first.Number})
		if e2etest.Must(t, page, err).Meta.Total < 1 || !slices.ContainsFunc(page.Items, func(d client.ReceivedDocument) bool { return d.ID == first.ID }) {
			t.Errorf("search %q: %+v", first.Number, page)
		}
		page, err = b.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Search: "supplier's"})
		if e2etest.Must(t, page, err).Meta.Total != len(payable) && page.Meta.Total == 0 {
			t.Errorf("search by issuer name part: %d", page.Meta.Total)
		}
		// A's own list of received documents holds none of these.
		page, err = a.ReceivedDocuments.List(ctx, nil)
		for _, d := range e2etest.Must(t, page, err).Items {
			if _, ok := payable[d.UUID]; ok {
				t.Errorf("A received its own document %s", d.UUID)
			}
		}

		// B rejects one within the window: A sees the request.
		var target client.ReceivedDocument
		for _, d := range got {
			if d.DocumentType == "01" {
				target = d
				break
			}
		}
		rej, err := b.ReceivedDocuments.Reject(ctx, target.ID, "Wrong quantity delivered")
		if e2etest.Must(t, rej, err).RejectionRequestedAt == nil || rej.Rejectable {
			t.Errorf("after reject: %+v", rej)
		}
		_, err = b.ReceivedDocuments.Reject(ctx, target.ID, "Again")
		e2etest.WantErr(t, err, 409, client.CodeDocumentNotValid)
		st, err := a.Documents.Status(ctx, ids[target.UUID])
		if rr := e2etest.Must(t, st, err).RejectionRequested; rr == nil || rr.Reason != "Wrong quantity delivered" {
			t.Errorf("A's document after B's rejection: %+v", st)
		}
		events, err := a.Events.List(ctx, &client.EventListOptions{Type: client.EventDocumentRejectionRequested})
		if e2etest.Must(t, events, err).Meta.Total != 1 {
			t.Errorf("A's %s events: %d, want 1", client.EventDocumentRejectionRequested, events.Meta.Total)
		} else if d, err := events.Items[0].Document(); err != nil || d.ID != ids[target.UUID] {
			t.Errorf("A's rejection event is about %+v (%v), want %s", d, err, ids[target.UUID])
		}

		// A cancels another: B's copy turns Cancelled, with an event.
		var cancelled client.ReceivedDocument
		for _, d := range got {
			if d.ID != target.ID && d.DocumentType != "01" && d.DocumentType != "11" {
				cancelled = d
				break
			}
		}
		if _, err := a.Documents.Cancel(ctx, ids[cancelled.UUID], "Issued in error"); err != nil {
			t.Fatalf("A cancels %s: %v", cancelled.Number, err)
		}
		e2etest.WaitReceived(t, b, 60*time.Second, "B sees the cancellation", func(ds []client.ReceivedDocument) bool {
			return slices.ContainsFunc(ds, func(d client.ReceivedDocument) bool { return d.ID == cancelled.ID && d.Status == "Cancelled" })
		})
		page, err = b.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Status: "Cancelled"})
		if e2etest.Must(t, page, err).Meta.Total != 1 || page.Items[0].ID != cancelled.ID {
			t.Errorf("status=Cancelled: %+v", page)
		}
		for _, typ := range []string{client.EventReceivedDocumentCreated, client.EventReceivedDocumentCancelled} {
			ev, err := b.Events.List(ctx, &client.EventListOptions{Type: typ, ListOptions: client.ListOptions{PerPage: 100}})
			want := len(payable)
			if typ == client.EventReceivedDocumentCancelled {
				want = 1
			}
			if e2etest.Must(t, ev, err).Meta.Total != want {
				t.Errorf("B's %s events: %d, want %d", typ, ev.Meta.Total, want)
			}
		}

		// A restart, and a second replica: still each once.
		svc.Stop(t)
		svc = e2etest.StartServiceAt(t, dsn, clock.Now, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, e2etest.ReceivedArgs...)...)
		replica := e2etest.StartServiceAt(t, dsn, clock.Now, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, e2etest.ReceivedArgs...)...)
		b, a = svc.API(t, keyB), replica.API(t, keyA)
		extra := e2etest.ReadyInvoiceDoc(t, a, "INV-RECV-EXTRA", buyer.ID)
		sub, err := a.Documents.Submit(ctx, extra)
		e2etest.Want200(t, e2etest.Must(t, sub, err))
		xst := e2etest.WaitStatusTyped(t, a, extra, client.StatusValid, 20*time.Second)
		payable[xst.DocumentUUID] = "" // checked below by count only
		e2etest.WaitReceived(t, b, 60*time.Second, "B receives the document sent after the restart", func(ds []client.ReceivedDocument) bool {
			return slices.ContainsFunc(ds, func(d client.ReceivedDocument) bool { return d.UUID == xst.DocumentUUID })
		})
		time.Sleep(time.Second) // both replicas have had passes
		got = e2etest.WaitReceived(t, replica.API(t, keyB), 5*time.Second, "the list", func([]client.ReceivedDocument) bool { return true })
		seen := map[string]int{}
		for _, d := range got {
			seen[d.UUID]++
		}
		for u := range payable {
			if seen[u] != 1 {
				t.Errorf("after restart with two replicas: %s received %d times", u, seen[u])
			}
		}

		// After 72 hours, a rejection is refused before asking the authority.
		var late client.ReceivedDocument
		for _, d := range got {
			if d.Status == "Valid" && d.RejectionRequestedAt == nil {
				late = d
				break
			}
		}
		clock.Advance(73 * time.Hour)
		_, err = b.ReceivedDocuments.Reject(ctx, late.ID, "Too late")
		e2etest.WantErr(t, err, 409, client.CodeRejectWindowClosed)
	})
}

// TestReceivedBadInput: unknown ids, bad filters and reasons are JSON
// errors with their codes, never a 500.
func TestReceivedBadInput(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	svc := e2etest.StartService(t, migrated.SQLite(t), e2etest.ReceivedArgs...)
	c := svc.API(t, svc.DemoKey)
	raw := svc.Client(t, svc.DemoKey)
	for _, id := range []string{e2etest.NewID(), "not-an-id", "F9D425P6DS7D8IUMKB4TJ6MY10"} {
		_, err := c.ReceivedDocuments.Get(ctx, id)
		e2etest.WantErr(t, err, 404, client.CodeReceivedNotFound)
		_, err = c.ReceivedDocuments.UBL(ctx, id)
		e2etest.WantErr(t, err, 404, client.CodeReceivedNotFound)
		_, err = c.ReceivedDocuments.PDF(ctx, id)
		e2etest.WantErr(t, err, 404, client.CodeReceivedNotFound)
		_, err = c.ReceivedDocuments.Reject(ctx, id, "reason")
		e2etest.WantErr(t, err, 404, client.CodeReceivedNotFound)
	}
	_, err := c.ReceivedDocuments.Reject(ctx, e2etest.NewID(), "")
	e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
	_, err = c.ReceivedDocuments.Reject(ctx, e2etest.NewID(), strings.Repeat("x", 301))
	e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
	raw.Do("POST", "/api/v1/received-documents/"+e2etest.NewID()+"/reject", `{"reason": 5}`).Want(t, 400, "MALFORMED_JSON")
	for q, field := range map[string]string{"status=Lost": "status", "from=2026-13-01": "from", "to=yesterday": "to",
		"from=2026-02-01&to=2026-01-01": "to", "per_page=0": "per_page"} {
		r := raw.Do("GET", "/api/v1/received-documents?"+q, nil).Want(t, 422, "VALIDATION_FAILED")
		if _, ok := r.FieldErrors()[field]; !ok {
			t.Errorf("%s: errors %v, want %s", q, r.FieldErrors(), field)
		}
	}
	page, err := c.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Status: "Valid", Search: "x", From: "2026-01-01", To: "2026-12-31"})
	if e2etest.Must(t, page, err).Meta.Total != 0 {
		t.Errorf("empty tenant: %+v", page)
	}
}

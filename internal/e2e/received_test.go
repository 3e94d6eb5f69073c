package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testclock"
)

// receivedTIN is the TIN of tenant B in the received-documents tests: the
// sample buyer's, so that tenant A's documents to its sample buyer (and its
// self-billed ones, B the supplier) are B's received documents.
const receivedTIN = "C20880050010"

// receivedArgs run the poller often, so that tests need not wait long.
var receivedArgs = []string{"--received-poll-interval", "200ms"}

// waitReceived polls B's received list until want holds of it.
func waitReceived(t *testing.T, c *client.Client, within time.Duration, what string, want func([]client.ReceivedDocument) bool) []client.ReceivedDocument {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var got []client.ReceivedDocument
		for d, err := range c.ReceivedDocuments.All(t.Context(), &client.ReceivedListOptions{ListOptions: client.ListOptions{PerPage: 100}}) {
			if err != nil {
				t.Fatalf("list received documents: %v", err)
			}
			got = append(got, d)
		}
		if want(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s; received %d: %+v", what, within, len(got), got)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// receivingPair readies the demo tenant (A) to issue and a second tenant
// (B, receivedTIN) to receive: their profiles, and A's buyer that is B;
// it returns A's client, B's key and that buyer.
func receivingPair(t *testing.T, svc *service, dsn string) (a *client.Client, keyB string, buyer *client.Party) {
	t.Helper()
	ctx := t.Context()
	a = svc.api(t, svc.DemoKey)
	prof, err := a.Profile.Update(ctx, profileOf(t, sampleProfile()), nil)
	must(t, prof, err)
	_, keyB = secTenant(t, dsn, "Buyer's Name", receivedTIN)
	b := svc.api(t, keyB)
	profB := sampleProfile()
	profB["tin"], profB["idType"], profB["idValue"], profB["name"] = receivedTIN, "BRN", "201901234567", "Buyer's Name"
	pb, err := b.Profile.Update(ctx, profileOf(t, profB), nil)
	must(t, pb, err)
	buyer, err = a.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
	return a, keyB, must(t, buyer, err)
}

// TestReceivedDocuments: tenant A issues invoices, notes and a self-billed
// invoice to tenant B's TIN on the built-in sandbox; B's poller finds each
// once, with the amounts A's documents carry, also across a restart and
// with two replicas polling; B rejects one within the window (A sees the
// rejection request), is refused after it (injected clock); A cancels one
// and B's copy turns Cancelled; the events arrive.
func TestReceivedDocuments(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		clock := &testclock.Clock{}
		svc := startServiceAt(t, dsn, clock.Now, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, receivedArgs...)...)
		keyA := svc.DemoKey
		a, keyB, buyer := receivingPair(t, svc, dsn)
		b := svc.api(t, keyB)
		sellerBody := sampleSeller()
		sellerBody["tin"], sellerBody["idValue"], sellerBody["name"] = receivedTIN, "201901234567", "Buyer's Name"
		seller, err := a.Sellers.Create(ctx, partyOf(t, sellerBody))
		must(t, seller, err)

		// A's documents: those to B (every kind but the consolidated
		// invoice, which goes to the General Public).
		uuids := map[string]string{}   // serial -> authority uuid
		payable := map[string]string{} // authority uuid -> payable
		ids := map[string]string{}     // authority uuid -> A's document id
		for _, r := range realisticSet(buyer.ID, seller.ID) {
			info := kindInfo(t, r.kind)
			if info.Consolidated {
				continue
			}
			serial := str(r.body["invoiceSerialNumber"])
			if refs, _ := r.body["documentReferences"].([]any); info.Note && len(refs) > 0 {
				ref := refs[0].(map[string]any)
				if u := uuids[str(ref["referenceNumber"])]; u != "" {
					ref["uuid"] = u
				}
			}
			d, err := a.Documents.Create(ctx, docOf(t, client.DocumentType(r.kind), r.body))
			id := must(t, d, err).ID
			wantValidationPassed(t, a, serial, id)
			sub, err := a.Documents.Submit(ctx, id)
			want200(t, must(t, sub, err))
			st := waitStatusTyped(t, a, id, client.StatusValid, 20*time.Second)
			uuids[serial], payable[st.DocumentUUID], ids[st.DocumentUUID] = st.DocumentUUID, r.payable, id
		}
		if len(payable) < 5 {
			t.Fatalf("only %d documents to B", len(payable))
		}

		got := waitReceived(t, b, 60*time.Second, "B receives A's documents", func(ds []client.ReceivedDocument) bool { return len(ds) >= len(payable) })
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
				if !d.Parsed || d.Totals.Payable == nil || string(*d.Totals.Payable) != want || d.Issuer.TIN != "C2584563200" && d.Issuer.TIN != receivedTIN || len(d.Lines) == 0 ||
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
		if must(t, one, err).UUID != first.UUID || one.Status != "Valid" || !one.Rejectable {
			t.Errorf("get %s: %+v", first.ID, one)
		}
		byUUID, err := b.ReceivedDocuments.Get(ctx, first.UUID)
		if must(t, byUUID, err).ID != first.ID {
			t.Errorf("get by uuid: %+v", byUUID)
		}
		raw, err := b.ReceivedDocuments.UBL(ctx, first.ID)
		var ubl map[string]any
		if err == nil {
			err = json.Unmarshal(raw, &ubl)
		}
		if err != nil || ublText(ubl, "Invoice", "ID") != first.Number {
			t.Errorf("received UBL: %v %.200s", err, raw)
		}
		file, err := b.ReceivedDocuments.PDF(ctx, first.ID)
		if must(t, file, err); !strings.HasPrefix(string(file.Data), "%PDF-") || file.Filename != first.Number+".pdf" {
			t.Errorf("received PDF: %q %.20q", file.Filename, file.Data)
		}
		// Search and filters.
		page, err := b.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Search: first.Number})
		if must(t, page, err).Meta.Total < 1 || !slices.ContainsFunc(page.Items, func(d client.ReceivedDocument) bool { return d.ID == first.ID }) {
			t.Errorf("search %q: %+v", first.Number, page)
		}
		page, err = b.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Search: "supplier's"})
		if must(t, page, err).Meta.Total != len(payable) && page.Meta.Total == 0 {
			t.Errorf("search by issuer name part: %d", page.Meta.Total)
		}
		// A's own list of received documents holds none of these.
		page, err = a.ReceivedDocuments.List(ctx, nil)
		for _, d := range must(t, page, err).Items {
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
		if must(t, rej, err).RejectionRequestedAt == nil || rej.Rejectable {
			t.Errorf("after reject: %+v", rej)
		}
		_, err = b.ReceivedDocuments.Reject(ctx, target.ID, "Again")
		wantErr(t, err, 409, client.CodeDocumentNotValid)
		st, err := a.Documents.Status(ctx, ids[target.UUID])
		if rr := must(t, st, err).RejectionRequested; rr == nil || rr.Reason != "Wrong quantity delivered" {
			t.Errorf("A's document after B's rejection: %+v", st)
		}
		events, err := a.Events.List(ctx, &client.EventListOptions{Type: client.EventDocumentRejectionRequested})
		if must(t, events, err).Meta.Total != 1 {
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
		waitReceived(t, b, 60*time.Second, "B sees the cancellation", func(ds []client.ReceivedDocument) bool {
			return slices.ContainsFunc(ds, func(d client.ReceivedDocument) bool { return d.ID == cancelled.ID && d.Status == "Cancelled" })
		})
		page, err = b.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Status: "Cancelled"})
		if must(t, page, err).Meta.Total != 1 || page.Items[0].ID != cancelled.ID {
			t.Errorf("status=Cancelled: %+v", page)
		}
		for _, typ := range []string{client.EventReceivedDocumentCreated, client.EventReceivedDocumentCancelled} {
			ev, err := b.Events.List(ctx, &client.EventListOptions{Type: typ, ListOptions: client.ListOptions{PerPage: 100}})
			want := len(payable)
			if typ == client.EventReceivedDocumentCancelled {
				want = 1
			}
			if must(t, ev, err).Meta.Total != want {
				t.Errorf("B's %s events: %d, want %d", typ, ev.Meta.Total, want)
			}
		}

		// A restart, and a second replica: still each once.
		svc.Stop(t)
		svc = startServiceAt(t, dsn, clock.Now, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, receivedArgs...)...)
		replica := startServiceAt(t, dsn, clock.Now, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0"}, receivedArgs...)...)
		b, a = svc.api(t, keyB), replica.api(t, keyA)
		extra := readyInvoiceDoc(t, a, "INV-RECV-EXTRA", buyer.ID)
		sub, err := a.Documents.Submit(ctx, extra)
		want200(t, must(t, sub, err))
		xst := waitStatusTyped(t, a, extra, client.StatusValid, 20*time.Second)
		payable[xst.DocumentUUID] = "" // checked below by count only
		waitReceived(t, b, 60*time.Second, "B receives the document sent after the restart", func(ds []client.ReceivedDocument) bool {
			return slices.ContainsFunc(ds, func(d client.ReceivedDocument) bool { return d.UUID == xst.DocumentUUID })
		})
		time.Sleep(time.Second) // both replicas have had passes
		got = waitReceived(t, replica.api(t, keyB), 5*time.Second, "the list", func([]client.ReceivedDocument) bool { return true })
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
		wantErr(t, err, 409, client.CodeRejectWindowClosed)
	})
}

// TestReceivedBadInput: unknown ids, bad filters and reasons are JSON
// errors with their codes, never a 500.
func TestReceivedBadInput(t *testing.T) {
	ctx := t.Context()
	svc := startService(t, testdbSQLite(t), receivedArgs...)
	c := svc.api(t, svc.DemoKey)
	raw := svc.client(t, svc.DemoKey)
	for _, id := range []string{newID(), "not-an-id", "F9D425P6DS7D8IUMKB4TJ6MY10"} {
		_, err := c.ReceivedDocuments.Get(ctx, id)
		wantErr(t, err, 404, client.CodeReceivedNotFound)
		_, err = c.ReceivedDocuments.UBL(ctx, id)
		wantErr(t, err, 404, client.CodeReceivedNotFound)
		_, err = c.ReceivedDocuments.PDF(ctx, id)
		wantErr(t, err, 404, client.CodeReceivedNotFound)
		_, err = c.ReceivedDocuments.Reject(ctx, id, "reason")
		wantErr(t, err, 404, client.CodeReceivedNotFound)
	}
	_, err := c.ReceivedDocuments.Reject(ctx, newID(), "")
	wantErr(t, err, 422, client.CodeValidationFailed)
	_, err = c.ReceivedDocuments.Reject(ctx, newID(), strings.Repeat("x", 301))
	wantErr(t, err, 422, client.CodeValidationFailed)
	raw.do("POST", "/api/v1/received-documents/"+newID()+"/reject", `{"reason": 5}`).want(t, 400, "MALFORMED_JSON")
	for q, field := range map[string]string{"status=Lost": "status", "from=2026-13-01": "from", "to=yesterday": "to",
		"from=2026-02-01&to=2026-01-01": "to", "per_page=0": "per_page"} {
		r := raw.do("GET", "/api/v1/received-documents?"+q, nil).want(t, 422, "VALIDATION_FAILED")
		if _, ok := r.fieldErrors()[field]; !ok {
			t.Errorf("%s: errors %v, want %s", q, r.fieldErrors(), field)
		}
	}
	page, err := c.ReceivedDocuments.List(ctx, &client.ReceivedListOptions{Status: "Valid", Search: "x", From: "2026-01-01", To: "2026-12-31"})
	if must(t, page, err).Meta.Total != 0 {
		t.Errorf("empty tenant: %+v", page)
	}
}

// plantReceived stores a received document of the tenant directly in the
// database (as the poller would), for tests that need one without an
// issuer: its id.
func plantReceived(t *testing.T, dsn, tenantID, number string) string {
	t.Helper()
	st, err := servetest.OpenStore(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC().Truncate(time.Second)
	d := &einvoice.ReceivedDocument{ID: newID(), TenantID: tenantID, UUID: strings.ToUpper(strings.ReplaceAll(newID(), "-", ""))[:26],
		SubmissionUID: "PLANTED", TypeCode: "01", TypeName: "Invoice", TypeVersion: "1.0", Number: number,
		IssuerTIN: "C1234567890", IssuerName: "Planted Supplier Sdn. Bhd.", ReceiverTIN: "C2584563200", ReceiverName: "Receiver",
		IssuedAt: now, SubmittedAt: now, ValidatedAt: &now, Status: einvoice.ReceivedValid, Currency: "MYR",
		TotalExcludingTax: "100.00", TotalTax: "6.00", TotalIncludingTax: "106.00", TotalPayableAmount: "106.00",
		Lines:  []einvoice.ReceivedLine{{ID: "1", Description: "Goods", Quantity: "1", UnitPrice: "100.00", LineExtensionAmount: "100.00"}},
		Parsed: true, CreatedAt: now, UpdatedAt: now}
	if _, err := st.SaveReceived(t.Context(), einvoice.ReceivedWrite{Doc: d, Raw: []byte(`{"_D": "planted", "Invoice": []}`)}); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

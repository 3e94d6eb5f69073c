package invoicing_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// sendTwice loses the answer to a document's submission, then clears its
// maybe-sent mark (as a settle that wrongly concluded it was never sent
// would) and lets the clock pass the authority's 10 minutes for an
// identical payload: the next worker step sends it again, and the sandbox
// finds the second copy a duplicate (DS302) of the first.
func (w *world) sendTwice(id string) {
	w.t.Helper()
	w.loseAnswers([]string{id})
	w.forgetMark(id)
	w.clk.Advance(11 * time.Minute)
	w.work(10)
}

// longID is the long id the sandbox gave a document.
func (w *world) longID(uuid string) string {
	w.t.Helper()
	var id string
	if err := w.store.ReadDB().QueryRow(`SELECT long_id FROM sandbox_documents WHERE uuid = $1`, uuid).Scan(&id); err != nil {
		w.t.Fatal(err)
	}
	return id
}

// wantOriginal checks that the document sent twice is Valid as the first
// copy, and that its history says it was settled from the duplicate.
func (w *world) wantOriginal(id string) {
	w.t.Helper()
	d := w.document(id)
	copies := w.received(d.InvoiceSerialNumber)
	if len(copies) != 2 {
		w.t.Fatalf("the sandbox received %s %d times, want twice (the test sends it again)", d.InvoiceSerialNumber, len(copies))
	}
	if d.Status != einvoice.StatusValid || d.Authority.DocumentUUID != copies[0] || d.Authority.LongID != w.longID(copies[0]) ||
		d.Authority.ValidatedAt == nil || len(d.Authority.Errors) != 0 {
		w.t.Errorf("%s is %s %+v, want Valid as the original %s", d.InvoiceSerialNumber, d.Status, d.Authority, copies[0])
	}
	if j := w.job(id); j.State != einvoice.JobDone {
		w.t.Errorf("job %+v, want done", j)
	}
	h := w.history(id)
	if !slices.ContainsFunc(h, func(n string) bool {
		return strings.Contains(n, "settled from a duplicate") && strings.Contains(n, copies[1]) && strings.Contains(n, copies[0])
	}) {
		w.t.Errorf("history %q does not tell it was settled from the duplicate %s of %s", h, copies[1], copies[0])
	}
}

// TestDuplicateSettlesToOriginal: a document sent twice, whose second copy
// the authority finds a duplicate (DS302) of the first, ends Valid as the
// first copy (its uuid, long id and validation time), not Invalid.
func TestDuplicateSettlesToOriginal(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		w := newWorld(t, dsn)
		ids := w.readyInvoices("TWICE", 1)
		w.sendTwice(ids[0])
		w.wantOriginal(ids[0])
	})
}

// noUUIDs is an authority whose validation messages name no uuid, so that
// the original of a duplicate must be found by a search.
type noUUIDs struct{ einvoice.AuthorityAPI }

var uuidInText = regexp.MustCompile(`\b[0-9A-Z]{26}\b`)

func (a noUUIDs) GetDocumentDetails(ctx context.Context, c einvoice.Credentials, uuid string) (einvoice.DocumentState, error) {
	s, err := a.AuthorityAPI.GetDocumentDetails(ctx, c, uuid)
	s.Errors = stripUUIDs(s.Errors)
	return s, err
}

func stripUUIDs(errs []einvoice.AuthorityError) []einvoice.AuthorityError {
	out := slices.Clone(errs)
	for i := range out {
		out[i].Message = uuidInText.ReplaceAllString(out[i].Message, "(a document)")
		out[i].Details = stripUUIDs(out[i].Details)
	}
	return out
}

// TestDuplicateOriginalBySearch: when the DS302 message does not name the
// original, a search finds it.
func TestDuplicateOriginalBySearch(t *testing.T) {
	w := newWorldWith(t, sqliteDSN(t), func(o *invoicing.Options) { o.Authority = noUUIDs{o.Authority} })
	ids := w.readyInvoices("TWICE", 1)
	w.sendTwice(ids[0])
	w.wantOriginal(ids[0])
}

// TestDuplicatePayloadSettles: a document sent again within 10 minutes in
// the same payload is refused whole (422 DuplicateSubmission): the document
// is not marked Invalid but settled by a search, Valid as the one copy the
// sandbox holds.
func TestDuplicatePayloadSettles(t *testing.T) {
	w := newWorld(t, sqliteDSN(t))
	ids := w.readyInvoices("PAYLOAD", 1)
	w.loseAnswers(ids)
	w.forgetMark(ids[0])
	w.clk.Advance(time.Minute) // past the lease and the backoff, within the 10 minutes
	if _, err := w.svc.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if j := w.job(ids[0]); !j.MaybeSent || !strings.Contains(j.LastError, "DuplicateSubmission") {
		t.Errorf("after a 422 DuplicateSubmission: job %+v, want maybe sent, to be settled", j)
	}
	w.clk.Advance(10 * time.Minute) // the answer's Retry-After
	w.work(10)
	w.wantValidOnce(ids)
}

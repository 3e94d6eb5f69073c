package documents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testscale"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/einvoice/einvoice/client"
)

// The round trip of DECISIONS 1 and 12: whatever a GET returns, a PUT of it
// takes back unchanged.

// typedRoundTrip is roundTrip through the typed client: what get returns,
// sent back as it is by put, is a 200 whose answer, and a get after it,
// equal it but for what the service sets (ignore); and the JSON of a raw
// GET of path after it holds the same writable content as before, so that
// the typed client loses no field on the way.
func typedRoundTrip[T any](c *e2etest.RawClient, what, path string, get func() (*T, error), put func(*T) (*T, error), ignore cmp.Option, serviceSet ...string) {
	t := c.T
	t.Helper()
	before := e2etest.Writable(t, e2etest.RawData(t, c.Do("GET", path, nil).Want(t, 200, "")), serviceSet...)
	v, err := get()
	e2etest.Must(t, v, err)
	answer, err := put(v)
	if err != nil {
		t.Errorf("%s: typed PUT of what the typed GET returned: %v\nsent: %+v", what, err, v)
		return
	}
	again, err := get()
	for _, r := range []struct {
		when string
		got  *T
	}{{"typed PUT", answer}, {"typed GET after PUT", e2etest.Must(t, again, err)}} {
		if diff := cmp.Diff(v, r.got, ignore); diff != "" {
			t.Errorf("%s: %s changed the content (-before +after):\n%s", what, r.when, diff)
		}
	}
	if after := e2etest.Writable(t, e2etest.RawData(t, c.Do("GET", path, nil).Want(t, 200, "")), serviceSet...); !reflect.DeepEqual(after, before) {
		t.Errorf("%s: the typed round trip changed the content:\nbefore %v\nafter  %v", what, before, after)
	}
}

// What the service sets, and may change on a PUT, of each typed resource.
var (
	partySet    = cmp.Options{cmpopts.IgnoreFields(client.Party{}, "UpdatedAt"), cmpopts.IgnoreFields(client.TINCheck{}, "CheckedAt")}
	documentSet = cmpopts.IgnoreFields(client.Document{}, "UpdatedAt", "Status", "History", "Authority", "Frozen")
	profileSet  = cmpopts.IgnoreFields(client.Profile{}, "UpdatedAt")
)

// typedPartyRoundTrip is typedRoundTrip of a buyer or on-behalf seller.
func typedPartyRoundTrip(c *e2etest.RawClient, parties *client.PartyService, what, path, id string) {
	c.T.Helper()
	ctx := c.T.Context()
	typedRoundTrip(c, what, path+"/"+id, func() (*client.Party, error) { return parties.Get(ctx, id) },
		func(p *client.Party) (*client.Party, error) { return parties.Update(ctx, id, p) }, partySet)
}

// typedDocumentRoundTrip is typedRoundTrip of a document.
func typedDocumentRoundTrip(c *e2etest.RawClient, api *client.Client, what, id string, serviceSet ...string) {
	c.T.Helper()
	ctx := c.T.Context()
	typedRoundTrip(c, what, "/api/v1/invoices/"+id, func() (*client.Document, error) { return api.Documents.Get(ctx, id) },
		func(d *client.Document) (*client.Document, error) { return api.Documents.Update(ctx, id, d) }, documentSet, serviceSet...)
}

// typedProfileRoundTrip is typedRoundTrip of the profile, its authority
// settings left as they are.
func typedProfileRoundTrip(c *e2etest.RawClient, api *client.Client, what string) {
	c.T.Helper()
	ctx := c.T.Context()
	typedRoundTrip(c, what, "/api/v1/profile", func() (*client.Profile, error) { return api.Profile.Get(ctx) },
		func(p *client.Profile) (*client.Profile, error) { return api.Profile.Update(ctx, p, nil) }, profileSet)
}

// variedParty is a buyer or on-behalf seller with optional parts chosen by
// rng: the id fields under their snake_case or camelCase names (or both),
// draft or not, a foreign party, a TIN the authority does not know, extra
// address lines and contact fields.
func variedParty(rng *rand.Rand, seller bool, i int) map[string]any {
	p := e2etest.SampleBuyer()
	if seller {
		p = e2etest.SampleSeller()
	}
	p["name"] = fmt.Sprintf("Party %d %s", i, []string{"Sdn. Bhd.", "Enterprise", "Trading 贸易"}[rng.IntN(3)])
	addr := p["address"].(map[string]any)
	switch rng.IntN(4) {
	case 0: // foreign
		p["tin"], p["idType"], p["idValue"] = "EI00000000030", "PASSPORT", "K12345678"
		addr["countryCode"], addr["state"], addr["city"] = "SGP", "17", "Singapore"
		delete(addr, "postCode")
	case 1: // unknown to the authority
		p["tin"] = "C99999999990"
	}
	if rng.IntN(2) == 0 {
		delete(addr, "line2")
		delete(addr, "line3")
	}
	if rng.IntN(2) == 0 {
		contact := p["contact"].(map[string]any)
		contact["name"], contact["fax"] = "Accounts", "+60312345678"
	}
	switch rng.IntN(3) {
	case 0:
		p["id_type"], p["id_value"] = p["idType"], p["idValue"]
		delete(p, "idType")
		delete(p, "idValue")
	case 1:
		p["id_type"], p["id_value"] = p["idType"], p["idValue"]
	}
	switch rng.IntN(3) {
	case 0:
		p["is_draft"] = true
		delete(p, "contact")
	case 1:
		p["isDraft"] = false
	}
	return p
}

// variedDocument changes a document body as rng says: quantities written
// with trailing zeros, optional parts left out, line rates added.
func variedDocument(rng *rand.Rand, d map[string]any) map[string]any {
	for _, l := range d["invoiceLines"].([]any) {
		line := l.(map[string]any)
		switch rng.IntN(3) {
		case 0:
			line["quantity"] = e2etest.JSONNumber("1.500")
		case 1:
			line["quantity"] = e2etest.JSONNumber("3")
			line["discountRate"], line["discountDescription"] = e2etest.JSONNumber("2.50"), "Loyalty"
		}
	}
	for _, k := range []string{"delivery", "invoicePeriod", "payment", "invoiceFeeAmount"} {
		if rng.IntN(3) == 0 {
			delete(d, k)
		}
	}
	return d
}

// TestScaleRoundTrip: for every resource that has a PUT — buyers, on-behalf
// sellers, the profile, documents of every kind with autoCalculate true and
// false (notes with references, consolidated, self-billed), a ready one and
// an Invalid one with the authority's record — a GET's data PUT back
// unchanged is a 200 that changes no writable field: as JSON, the very
// bytes GET answered (the parties' bodies are written out too, with the
// snake_case twins of their id fields), and through the typed client, its
// GET's value sent back by its PUT.
func TestScaleRoundTrip(t *testing.T) {
	testscale.Mark(t)
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc, c := e2etest.StartLifecycleService(t, dsn)
		ctx := t.Context()
		api := svc.API(t, svc.DemoKey)
		const seed = 12
		rng := rand.New(rand.NewPCG(seed, seed))
		t.Logf("seed %d", seed)
		docSet := []string{"updatedAt", "status", "history", "authority", "frozen"}

		for i := range 8 {
			for _, p := range []struct {
				path    string
				seller  bool
				parties *client.PartyService
			}{{"/api/v1/buyers", false, api.Buyers}, {"/api/v1/on-behalf-sellers", true, api.Sellers}} {
				body := variedParty(rng, p.seller, i)
				id := e2etest.Str(c.Do("POST", p.path, body).Want(t, 201, "").Data()["id"])
				what := fmt.Sprintf("%s %d %v", p.path, i, body)
				c.RoundTrip(what, p.path+"/"+id)
				typedPartyRoundTrip(c, p.parties, what, p.path, id)
			}
		}
		buyer, err := api.Buyers.Create(ctx, e2etest.TypedBody[client.Party](t, e2etest.SampleBuyer()))
		buyerID := e2etest.Must(t, buyer, err).ID
		seller, err := api.Sellers.Create(ctx, e2etest.TypedBody[client.Party](t, e2etest.SampleSeller()))
		sellerID := e2etest.Must(t, seller, err).ID
		c.RoundTrip("the complete buyer", "/api/v1/buyers/"+buyerID)
		typedPartyRoundTrip(c, api.Buyers, "the complete buyer", "/api/v1/buyers", buyerID)
		c.RoundTrip("the complete seller", "/api/v1/on-behalf-sellers/"+sellerID)
		typedPartyRoundTrip(c, api.Sellers, "the complete seller", "/api/v1/on-behalf-sellers", sellerID)

		var firstInvoice string
		for _, r := range e2etest.RealisticSet(buyerID, sellerID) {
			info := e2etest.KindInfo(t, r.Kind)
			for _, auto := range []bool{true, false} {
				body := variedDocument(rng, r.Body)
				body["autoCalculate"] = auto
				body["invoiceSerialNumber"] = fmt.Sprintf("%s-%v", r.Body["invoiceSerialNumber"], auto)
				created := c.Do("POST", "/api/v1"+info.Path, body).Want(t, 201, "")
				id := e2etest.Str(created.Data()["id"])
				if firstInvoice == "" && r.Kind == "invoice" {
					firstInvoice = id
				}
				what := fmt.Sprintf("%s autoCalculate %v", r.Sample, auto)
				c.RoundTrip(what, "/api/v1/invoices/"+id, docSet...)
				typedDocumentRoundTrip(c, api, what, id, docSet...)
				if auto {
					// The computed amounts sent back with autoCalculate off
					// are the client's own: stored as given.
					computed := e2etest.RawData(t, created)
					var again map[string]any
					dec := json.NewDecoder(bytes.NewReader(computed))
					dec.UseNumber()
					_ = dec.Decode(&again)
					again["autoCalculate"], again["invoiceSerialNumber"] = false, fmt.Sprintf("%s-given", r.Body["invoiceSerialNumber"])
					id := e2etest.Str(c.Do("POST", "/api/v1"+info.Path, again).Want(t, 201, "").Data()["id"])
					c.RoundTrip(r.Sample+" with given amounts", "/api/v1/invoices/"+id, docSet...)
					typedDocumentRoundTrip(c, api, r.Sample+" with given amounts", id, docSet...)
				}
			}
		}

		// A ready document goes back to draft, its content unchanged.
		e2etest.WantValidationPassed(t, api, "the first invoice", firstInvoice)
		c.RoundTrip("a ready invoice", "/api/v1/invoices/"+firstInvoice, docSet...)
		e2etest.WantValidationPassed(t, api, "the first invoice, again", firstInvoice)
		typedDocumentRoundTrip(c, api, "a ready invoice", firstInvoice, docSet...)

		c.RoundTrip("the profile", "/api/v1/profile")
		typedProfileRoundTrip(c, api, "the profile")
		// As an intermediary for another taxpayer, a submitted invoice is
		// refused: Invalid, with the authority's record and frozen parties.
		cur, err := api.Profile.Get(ctx)
		e2etest.Must(t, cur, err)
		prof, err := api.Profile.Update(ctx, e2etest.TypedBody[client.Profile](t, e2etest.SampleProfile()), &client.AuthorityUpdate{
			Environment: "sandbox", Mode: "intermediary", OnBehalfOf: "C1111111110", ClientID: cur.Authority.ClientID})
		e2etest.Must(t, prof, err)
		c.RoundTrip("the profile of an intermediary", "/api/v1/profile")
		typedProfileRoundTrip(c, api, "the profile of an intermediary")
		inv := e2etest.ReadyInvoiceDoc(t, api, "RT-INVALID-1", buyerID)
		_, err = api.Documents.Submit(ctx, inv)
		if e := e2etest.WantErr(t, err, 422, client.CodeAuthorityRejected); len(e.Authority) == 0 {
			t.Errorf("the authority's refusal has none of its errors: %s", e.Body)
		}
		if d, err := api.Documents.Get(ctx, inv); e2etest.Must(t, d, err).Status != client.StatusInvalid || d.Authority == nil || d.Frozen == nil {
			t.Fatalf("the refused invoice: %+v", d)
		}
		c.RoundTrip("an Invalid invoice", "/api/v1/invoices/"+inv, docSet...)
		// The typed round trip of another Invalid invoice (the one above is a
		// draft again).
		inv = e2etest.ReadyInvoiceDoc(t, api, "RT-INVALID-2", buyerID)
		_, err = api.Documents.Submit(ctx, inv)
		e2etest.WantErr(t, err, 422, client.CodeAuthorityRejected)
		typedDocumentRoundTrip(c, api, "an Invalid invoice", inv, docSet...)
	})
}

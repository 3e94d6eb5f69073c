package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The round trip of DECISIONS 1 and 12: whatever a GET returns, a PUT of it
// takes back unchanged.

// rawData returns the data of an answer as sent, numbers and all.
func rawData(t *testing.T, r *response) []byte {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &env); err != nil || len(env.Data) == 0 {
		t.Fatalf("no data in %s", r.Raw)
	}
	return env.Data
}

// writable decodes data (numbers as written) and drops what the service,
// not the client, sets and may change on a PUT: the given top-level keys,
// and the time of a TIN check.
func writable(t *testing.T, data []byte, serviceSet ...string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var d map[string]any
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	delete(d, "updatedAt")
	for _, k := range serviceSet {
		delete(d, k)
	}
	if tc, ok := d["tinCheck"].(map[string]any); ok {
		delete(tc, "checkedAt")
	}
	return d
}

// roundTrip GETs path, PUTs its data back unchanged and checks the answer
// is 200 and that the answer and a GET after it hold the same writable
// content as before.
func (c *rawClient) roundTrip(what, path string, serviceSet ...string) {
	c.t.Helper()
	before := rawData(c.t, c.do("GET", path, nil).want(c.t, 200, ""))
	put := c.do("PUT", path, before)
	if put.Status != 200 {
		c.t.Errorf("%s: PUT of what GET %s returned = %d: %s\nsent: %s", what, path, put.Status, put.Raw, before)
		return
	}
	want := writable(c.t, before, serviceSet...)
	for _, r := range []struct {
		when string
		data []byte
	}{{"PUT", rawData(c.t, put)}, {"GET after PUT", rawData(c.t, c.do("GET", path, nil).want(c.t, 200, ""))}} {
		if got := writable(c.t, r.data, serviceSet...); !reflect.DeepEqual(got, want) {
			c.t.Errorf("%s: %s changed the content:\nbefore %s\nafter  %s", what, r.when, before, r.data)
		}
	}
}

// variedParty is a buyer or on-behalf seller with optional parts chosen by
// rng: the id fields under their snake_case or camelCase names (or both),
// draft or not, a foreign party, a TIN the authority does not know, extra
// address lines and contact fields.
func variedParty(rng *rand.Rand, seller bool, i int) map[string]any {
	p := sampleBuyer()
	if seller {
		p = sampleSeller()
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
			line["quantity"] = jsonNumber("1.500")
		case 1:
			line["quantity"] = jsonNumber("3")
			line["discountRate"], line["discountDescription"] = jsonNumber("2.50"), "Loyalty"
		}
	}
	for _, k := range []string{"delivery", "invoicePeriod", "payment", "invoiceFeeAmount"} {
		if rng.IntN(3) == 0 {
			delete(d, k)
		}
	}
	return d
}

// TestRoundTrip: for every resource that has a PUT — buyers, on-behalf
// sellers, the profile, documents of every kind with autoCalculate true and
// false (notes with references, consolidated, self-billed), a ready one and
// an Invalid one with the authority's record — a GET's data PUT back
// unchanged is a 200 that changes no writable field.
func TestRoundTrip(t *testing.T) {
	eachEngine(t, func(t *testing.T, dsn string) {
		_, c := startLifecycleService(t, dsn)
		const seed = 12
		rng := rand.New(rand.NewPCG(seed, seed))
		t.Logf("seed %d", seed)
		docSet := []string{"updatedAt", "status", "history", "authority", "frozen"}

		var buyerID, sellerID string
		for i := range 8 {
			for _, p := range []struct {
				path   string
				seller bool
			}{{"/api/v1/buyers", false}, {"/api/v1/on-behalf-sellers", true}} {
				body := variedParty(rng, p.seller, i)
				id := str(c.do("POST", p.path, body).want(t, 201, "").data()["id"])
				c.roundTrip(fmt.Sprintf("%s %d %v", p.path, i, body), p.path+"/"+id)
			}
		}
		buyerID = str(c.do("POST", "/api/v1/buyers", sampleBuyer()).want(t, 201, "").data()["id"])
		sellerID = str(c.do("POST", "/api/v1/on-behalf-sellers", sampleSeller()).want(t, 201, "").data()["id"])
		c.roundTrip("the complete buyer", "/api/v1/buyers/"+buyerID)
		c.roundTrip("the complete seller", "/api/v1/on-behalf-sellers/"+sellerID)

		var firstInvoice string
		for _, r := range realisticSet(buyerID, sellerID) {
			info := kindInfo(t, r.kind)
			for _, auto := range []bool{true, false} {
				body := variedDocument(rng, r.body)
				body["autoCalculate"] = auto
				body["invoiceSerialNumber"] = fmt.Sprintf("%s-%v", r.body["invoiceSerialNumber"], auto)
				created := c.do("POST", "/api/v1"+info.Path, body).want(t, 201, "")
				id := str(created.data()["id"])
				if firstInvoice == "" && r.kind == "invoice" {
					firstInvoice = id
				}
				c.roundTrip(fmt.Sprintf("%s autoCalculate %v", r.sample, auto), "/api/v1/invoices/"+id, docSet...)
				if auto {
					// The computed amounts sent back with autoCalculate off
					// are the client's own: stored as given.
					computed := rawData(t, created)
					var again map[string]any
					dec := json.NewDecoder(bytes.NewReader(computed))
					dec.UseNumber()
					_ = dec.Decode(&again)
					again["autoCalculate"], again["invoiceSerialNumber"] = false, fmt.Sprintf("%s-given", r.body["invoiceSerialNumber"])
					id := str(c.do("POST", "/api/v1"+info.Path, again).want(t, 201, "").data()["id"])
					c.roundTrip(r.sample+" with given amounts", "/api/v1/invoices/"+id, docSet...)
				}
			}
		}

		// A ready document goes back to draft, its content unchanged.
		c.wantPassed("the first invoice", firstInvoice)
		c.roundTrip("a ready invoice", "/api/v1/invoices/"+firstInvoice, docSet...)

		c.roundTrip("the profile", "/api/v1/profile")
		// As an intermediary for another taxpayer, a submitted invoice is
		// refused: Invalid, with the authority's record and frozen parties.
		cur := c.do("GET", "/api/v1/profile", nil).want(t, 200, "").data()["authority"].(map[string]any)
		prof := sampleProfile()
		prof["authority"] = map[string]any{"environment": "sandbox", "mode": "intermediary", "onBehalfOf": "C1111111110", "clientId": cur["clientId"]}
		c.do("PUT", "/api/v1/profile", prof).want(t, 200, "")
		c.roundTrip("the profile of an intermediary", "/api/v1/profile")
		inv := c.readyInvoice("RT-INVALID-1", buyerID)
		c.do("POST", "/api/v1/documents/"+inv+"/submit", nil).want(t, 422, "AUTHORITY_REJECTED")
		if d := c.do("GET", "/api/v1/invoices/"+inv, nil).want(t, 200, "").data(); d["status"] != "Invalid" || d["authority"] == nil || d["frozen"] == nil {
			t.Fatalf("the refused invoice: %v", d)
		}
		c.roundTrip("an Invalid invoice", "/api/v1/invoices/"+inv, docSet...)
	})
}

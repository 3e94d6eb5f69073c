package dashboard_test

import (
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// receiverTIN is the TIN of the fixture's buyer (fixture.buyer): a tenant
// of that TIN receives, on the built-in sandbox, the documents the demo
// tenant issues to that buyer (as in internal/e2e's received tests).
const receiverTIN = "C21638015020"

// receivedArgs run serve with the sandbox answering at once and the
// received-documents poller running often.
var receivedArgs = []string{"--sandbox-delay", "0", "--received-poll-interval", "200ms", "--rate-limit", "100000"}

// receiver creates the tenant of receiverTIN and returns its id and a
// read-write key.
func (f *fixture) receiver(t *testing.T) (tenantID, key string) {
	t.Helper()
	tenantID = f.run(t, "tenant", "create", "--name", "Hebat Group", "--tin", receiverTIN, "--id-value", "201901234567")
	return tenantID, f.run(t, "key", "create", "--tenant", tenantID, "--name", "Hebat admin")
}

// issueValid creates an invoice of the demo tenant to buyerID with a line
// described desc, validates and submits it, and waits until it is Valid.
func (f *fixture) issueValid(t *testing.T, buyerID, serial, desc string) string {
	t.Helper()
	api := f.api(f.key)
	d, err := api.Documents.Create(t.Context(), &client.Document{BuyerID: buyerID, InvoiceSerialNumber: serial,
		CurrencyCode: "MYR", AutoCalculate: true, Lines: []client.Line{{Classifications: []string{"001"}, ProductDescription: desc,
			Quantity: "2", UnitCode: "H87", UnitPrice: "50.00", Taxes: []client.LineTax{{TaxType: "01", TaxRate: "8"}}}}})
	if err != nil {
		t.Fatalf("create invoice: %v", err)
	}
	if _, err := api.Documents.Validate(t.Context(), d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Documents.Submit(t.Context(), d.ID); err != nil {
		t.Fatal(err)
	}
	f.waitStatus(t, d.ID, client.StatusValid)
	return d.ID
}

// waitReceived polls key's received documents until there are n, and
// returns them, newest first.
func (f *fixture) waitReceived(t *testing.T, key string, n int) []client.ReceivedDocument {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := f.api(key).ReceivedDocuments.List(t.Context(), &client.ReceivedListOptions{})
		if err == nil && len(p.Items) >= n {
			return p.Items
		}
		if time.Now().After(deadline) {
			t.Fatalf("received documents: %v, %v after 60s; want %d", p, err, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

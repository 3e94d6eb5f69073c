package e2etest

import (
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/servetest"
)

// ReceivedTIN is the TIN of tenant B in the received-documents tests: the
// sample buyer's, so that tenant A's documents to its sample buyer (and its
// self-billed ones, B the supplier) are B's received documents.
const ReceivedTIN = "C20880050010"

// ReceivedArgs run the poller often, so that tests need not wait long.
var ReceivedArgs = []string{"--received-poll-interval", "200ms"}

// WaitReceived polls B's received list until want holds of it.
func WaitReceived(t *testing.T, c *client.Client, within time.Duration, what string, want func([]client.ReceivedDocument) bool) []client.ReceivedDocument {
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

// PlantReceived stores a received document of the tenant directly in the
// database (as the poller would), for tests that need one without an
// issuer: its id.
func PlantReceived(t *testing.T, dsn, tenantID, number string) string {
	t.Helper()
	st, err := servetest.OpenStore(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC().Truncate(time.Second)
	d := &einvoice.ReceivedDocument{ID: NewID(), TenantID: tenantID, UUID: strings.ToUpper(strings.ReplaceAll(NewID(), "-", ""))[:26],
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

package myinvois_test

import (
	"context"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/myinvois"
	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/testdb/migrated"
)

// TestReceivedCalls: the buyer's calls against the sandbox over HTTP:
// search with direction Received (paged, by status), the raw document with
// its summary, the notifications, and reject (once).
func TestReceivedCalls(t *testing.T) {
	ctx := context.Background()
	env := startSandbox(t, migrated.SQLite(t), sandbox.Options{})
	if err := env.sb.AddClient(ctx, sandbox.Client{ID: "buyer-client", Secret: "buyer-secret", TIN: buyerTIN, IDType: "BRN", IDValue: "201901234568"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if err := env.sb.Seed(ctx, env.cred.ClientID, "RCV-", 150, now.Add(-time.Hour), time.Second); err != nil {
		t.Fatal(err)
	}
	c := myinvois.New(myinvois.Options{})
	buyer := einvoice.Credentials{BaseURL: env.cred.BaseURL, ClientID: "buyer-client", ClientSecret: "buyer-secret"}
	p1, err := c.SearchReceived(ctx, buyer, now.Add(-2*time.Hour), now, "", 1)
	if err != nil || p1.TotalCount != 150 || p1.TotalPages != 2 || len(p1.Documents) != 100 {
		t.Fatalf("search page 1 = %d/%d/%d, %v", p1.TotalCount, p1.TotalPages, len(p1.Documents), err)
	}
	p2, err := c.SearchReceived(ctx, buyer, now.Add(-2*time.Hour), now, "", 2)
	if err != nil || len(p2.Documents) != 50 || !p2.Documents[49].SubmittedAt.Before(p1.Documents[0].SubmittedAt) {
		t.Fatalf("search page 2 = %d, %v", len(p2.Documents), err)
	}
	if p, err := c.SearchReceived(ctx, buyer, now.Add(-2*time.Hour), now, einvoice.ReceivedCancelled, 1); err != nil || p.TotalCount != 0 {
		t.Fatalf("search Cancelled = %+v, %v", p, err)
	}
	if p, err := c.SearchReceived(ctx, env.cred, now.Add(-2*time.Hour), now, "", 1); err != nil || p.TotalCount != 0 {
		t.Fatalf("the issuer received nothing: %+v, %v", p, err)
	}
	d := p1.Documents[0]
	sum, raw, err := c.GetRawDocument(ctx, buyer, d.UUID)
	if err != nil || sum.UUID != d.UUID || sum.Number != d.Number || sum.IssuerTIN != supplierTIN || sum.ReceiverTIN != buyerTIN ||
		sum.Status != einvoice.ReceivedValid || sum.ValidatedAt == nil || string(raw) != "{}" {
		t.Fatalf("raw = %+v %q, %v", sum, raw, err)
	}
	ns, err := c.Notifications(ctx, buyer, now.Add(-2*time.Hour))
	if err != nil || len(ns) == 0 || ns[0].TypeID != einvoice.NotificationReceived || ns[0].ID == "" {
		t.Fatalf("notifications = %+v, %v", ns, err)
	}
	if err := c.RejectDocument(ctx, buyer, d.UUID, "Wrong goods"); err != nil {
		t.Fatalf("reject: %v", err)
	}
	err = c.RejectDocument(ctx, buyer, d.UUID, "Again")
	if ce, ok := einvoice.AsCallError(err); !ok || ce.Status != 400 || ce.Body.Code != "IncorrectState" {
		t.Fatalf("reject again = %v", err)
	}
	if sum, _, err := c.GetRawDocument(ctx, buyer, d.UUID); err != nil || sum.RejectionAt == nil || sum.StatusReason != "Wrong goods" {
		t.Fatalf("after reject = %+v, %v", sum, err)
	}
}

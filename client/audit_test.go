package client_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/apidoc/apidoctest"
)

// TestAuditLog: a change made through the client, and one refused, are in
// the audit log with the key as the actor, the client's user agent, the
// route, the resource and the outcome; every answer checked against the
// OpenAPI document.
func TestAuditLog(t *testing.T) {
	ctx := context.Background()
	v := apidoctest.New(t)
	c := newClient(t, client.WithUserAgent("audit-log-test"), client.WithHTTPClient(&http.Client{Transport: v.Transport(t, nil)}))
	start := time.Now().Add(-time.Second)
	b, err := c.Buyers.Create(ctx, hebat("Audited Sdn. Bhd."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Buyers.Create(ctx, &client.Party{Name: "x", MSICCode: "01111"}); asError(t, err).StatusCode != 422 {
		t.Fatalf("a bad buyer: %v, want a 422", err)
	}
	page, err := c.AuditLog.List(ctx, &client.AuditListOptions{Resource: "buyer:" + b.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Meta.Total != 1 {
		t.Fatalf("entries of the buyer: %+v", page)
	}
	e := page.Items[0]
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	if e.Actor.Kind != "key" || e.Actor.ID == "" || e.Action != "POST /api/v1/buyers" || e.Outcome != client.AuditOK ||
		e.Status != 201 || !strings.HasPrefix(e.UserAgent, "audit-log-test") || e.Address == "" || e.At.Before(start) ||
		!hex.MatchString(e.Hash) || !hex.MatchString(e.PrevHash) {
		t.Errorf("entry %+v", e)
	}

	var refused []client.AuditEntry
	for r, err := range c.AuditLog.All(ctx, &client.AuditListOptions{Action: "POST /api/v1/buyers", From: start, ListOptions: client.ListOptions{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome == client.AuditRefused && r.UserAgent == e.UserAgent {
			refused = append(refused, r)
		}
	}
	if len(refused) != 1 || refused[0].Status != 422 || refused[0].Detail != "VALIDATION_FAILED" || refused[0].Resource.Type != "buyer" ||
		refused[0].Resource.ID != "" || refused[0].Seq <= e.Seq {
		t.Errorf("refused entries %+v, want the 422 after the create", refused)
	}
	older, err := c.AuditLog.List(ctx, &client.AuditListOptions{Before: refused[0].Seq, ListOptions: client.ListOptions{PerPage: 100}})
	if err != nil || len(older.Items) == 0 || older.Items[0].Seq >= refused[0].Seq {
		t.Errorf("before %d: %+v, %v", refused[0].Seq, older, err)
	}
	_, err = c.AuditLog.List(ctx, &client.AuditListOptions{Resource: ":x"})
	if e := asError(t, err); e.StatusCode != 422 || e.Field("resource") == nil {
		t.Errorf("resource :x = %v, want a 422 naming resource", err)
	}
}

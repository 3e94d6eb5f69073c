package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// receiver records the deliveries it gets.
type receiver struct {
	mu   sync.Mutex
	got  []*http.Request
	body [][]byte
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got, rc.body = append(rc.got, r), append(rc.body, b)
	rc.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (rc *receiver) wait(t *testing.T, n int) ([]*http.Request, [][]byte) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rc.mu.Lock()
		if len(rc.got) >= n {
			g, b := rc.got, rc.body
			rc.mu.Unlock()
			return g, b
		}
		rc.mu.Unlock()
	}
	t.Fatalf("the receiver got fewer than %d deliveries", n)
	return nil, nil
}

// TestWebhooks calls every operation of the Webhooks and Events services.
func TestWebhooks(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, apiKey)
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()

	h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: srv.URL + "/hook", Events: []string{client.EventDocumentValid}, Description: "books"})
	if err != nil {
		t.Fatal(err)
	}
	if h.Secret == "" || !h.Enabled || h.Description != "books" {
		t.Fatalf("created %+v", h)
	}
	got, err := c.Webhooks.Get(ctx, h.ID)
	if err != nil || got.Secret != "" || got.URL != h.URL {
		t.Fatalf("Get = %+v, %v (the secret is shown once)", got, err)
	}
	page, err := c.Webhooks.List(ctx, nil)
	if err != nil || page.Meta.Total < 1 {
		t.Fatalf("List = %+v, %v", page, err)
	}
	n := 0
	for w, err := range c.Webhooks.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n += map[bool]int{true: 1}[w.ID == h.ID]
	}
	if n != 1 {
		t.Errorf("All yielded the webhook %d times", n)
	}
	desc := "ledger"
	if u, err := c.Webhooks.Update(ctx, h.ID, &client.WebhookUpdate{Description: &desc}); err != nil || u.Description != desc || u.URL != h.URL {
		t.Fatalf("Update = %+v, %v", u, err)
	}

	d, err := c.Webhooks.Test(ctx, h.ID)
	if err != nil || d.EventType != client.EventWebhookTest || d.State != "pending" {
		t.Fatalf("Test = %+v, %v", d, err)
	}
	reqs, bodies := rc.wait(t, 1)
	if err := client.VerifyWebhook(h.Secret, reqs[0].Header.Get("Einvoice-Signature"), bodies[0]); err != nil {
		t.Errorf("test delivery: %v", err)
	}
	if reqs[0].Header.Get("Einvoice-Event-Id") != d.EventID {
		t.Errorf("Einvoice-Event-Id = %q, want %q", reqs[0].Header.Get("Einvoice-Event-Id"), d.EventID)
	}

	rotated, err := c.Webhooks.RotateSecret(ctx, h.ID)
	if err != nil || rotated.Secret == "" || rotated.Secret == h.Secret || rotated.PreviousSecretExpiresAt == nil {
		t.Fatalf("RotateSecret = %+v, %v", rotated, err)
	}
	re, err := c.Webhooks.Redeliver(ctx, h.ID, d.ID)
	if err != nil || re.EventID != d.EventID || re.ID == d.ID {
		t.Fatalf("Redeliver = %+v, %v", re, err)
	}
	reqs, bodies = rc.wait(t, 2)
	for _, secret := range []string{h.Secret, rotated.Secret} {
		if err := client.VerifyWebhook(secret, reqs[1].Header.Get("Einvoice-Signature"), bodies[1]); err != nil {
			t.Errorf("after rotation, signed by %s...: %v", secret[:10], err)
		}
	}
	var dl *client.Page[client.WebhookDelivery]
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if dl, err = c.Webhooks.Deliveries(ctx, h.ID, nil); err != nil {
			t.Fatal(err)
		}
		if len(dl.Items) == 2 && dl.Items[0].State == "delivered" && dl.Items[1].State == "delivered" {
			break
		}
	}
	if len(dl.Items) != 2 || len(dl.Items[0].Attempts) != 1 || dl.Items[0].Attempts[0].StatusCode != 200 {
		t.Fatalf("Deliveries = %+v", dl.Items)
	}

	if _, err := c.Events.List(ctx, &client.EventListOptions{Type: client.EventDocumentValid}); err != nil {
		t.Fatal(err)
	}
	for _, err := range c.Events.All(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Webhooks.Delete(ctx, h.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Webhooks.Get(ctx, h.ID); err == nil {
		t.Error("Get after Delete succeeded")
	}
}

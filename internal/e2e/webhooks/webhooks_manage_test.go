package webhooks

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/testclock"
)

// waitDelivery waits until the webhook's delivery id is in state.
func waitDelivery(t *testing.T, c *client.Client, hook, id, state string) client.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		for d, err := range deliveriesOf(t, c, hook) {
			if err != nil {
				t.Fatal(err)
			}
			if d.ID == id && d.State == state {
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %s of webhook %s not %s within 15s", id, hook, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookManage: test events, redelivery, rotation (both secrets sign
// for a while), disabling and enabling, and delete.
func TestWebhookManage(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc := e2etest.StartService(t, dsn, append([]string{"--rate-limit", "100000"}, e2etest.WebhookFlags...)...)
		c, raw := svc.API(t, svc.DemoKey), svc.Client(t, svc.DemoKey)
		rc := e2etest.NewHookReceiver(t, nil)
		h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL, Events: []string{client.EventDocumentValid}})
		e2etest.Must(t, h, err)
		if !strings.HasPrefix(h.Secret, "whsec_") {
			t.Errorf("secret %q", h.Secret)
		}
		if r := raw.Do("GET", "/api/v1/webhooks/"+h.ID, nil).Want(t, 200, ""); strings.Contains(string(r.Raw), h.Secret) {
			t.Errorf("GET shows the secret: %s", r.Raw)
		}

		d, err := c.Webhooks.Test(ctx, h.ID)
		waitDelivery(t, c, h.ID, e2etest.Must(t, d, err).ID, "delivered")
		g := rc.Deliveries()[0]
		if g.Event.Type != client.EventWebhookTest || client.VerifyWebhook(h.Secret, g.Header.Get("Einvoice-Signature"), g.Body) != nil {
			t.Errorf("test delivery %s %v", g.Body, g.Header)
		}
		// The test event is not an event of /events.
		if p, err := c.Events.List(ctx, nil); e2etest.Must(t, p, err).Meta.Total != 0 {
			t.Errorf("/events lists the test event: %+v", p.Items)
		}

		// Rotation: both secrets sign, two v1 entries.
		r, err := c.Webhooks.RotateSecret(ctx, h.ID)
		if e2etest.Must(t, r, err).Secret == h.Secret || r.PreviousSecretExpiresAt == nil ||
			time.Until(*r.PreviousSecretExpiresAt) < 23*time.Hour {
			t.Fatalf("rotated: %+v", r)
		}
		re, err := c.Webhooks.Redeliver(ctx, h.ID, d.ID)
		waitDelivery(t, c, h.ID, e2etest.Must(t, re, err).ID, "delivered")
		g = rc.Deliveries()[1]
		if sig := g.Header.Get("Einvoice-Signature"); strings.Count(sig, "v1=") != 2 ||
			client.VerifyWebhook(h.Secret, sig, g.Body) != nil || client.VerifyWebhook(r.Secret, sig, g.Body) != nil {
			t.Errorf("after rotation: %s", sig)
		}
		if g.Header.Get("Einvoice-Event-Id") != d.EventID {
			t.Errorf("redelivered event %s, want %s", g.Header.Get("Einvoice-Event-Id"), d.EventID)
		}

		// Disabled: deliveries wait; enabled again: they go.
		off := false
		u, err := c.Webhooks.Update(ctx, h.ID, &client.WebhookUpdate{Enabled: &off})
		if e2etest.Must(t, u, err).Enabled {
			t.Fatal("still enabled")
		}
		d2, err := c.Webhooks.Test(ctx, h.ID)
		e2etest.Must(t, d2, err)
		time.Sleep(600 * time.Millisecond)
		if n := len(rc.Deliveries()); n != 2 {
			t.Errorf("a disabled webhook received a delivery (%d)", n)
		}
		on := true
		events := []string{client.EventDocumentValid, client.EventDocumentInvalid}
		u, err = c.Webhooks.Update(ctx, h.ID, &client.WebhookUpdate{Enabled: &on, Events: &events})
		if !e2etest.Must(t, u, err).Enabled || len(u.Events) != 2 {
			t.Fatalf("updated %+v", u)
		}
		waitDelivery(t, c, h.ID, d2.ID, "delivered")

		// The metrics: deliveries by outcome, the queue.
		m, err := c.Metrics(ctx)
		for _, want := range []string{`einvoice_webhook_deliveries_total{outcome="delivered"} 3`,
			"einvoice_webhook_deliveries_pending 0", "einvoice_webhook_oldest_pending_seconds 0",
			"einvoice_webhook_delivery_duration_seconds_count 3"} {
			if !strings.Contains(string(e2etest.Must(t, m, err)), want+"\n") {
				t.Errorf("metrics lack %q", want)
			}
		}

		if err := c.Webhooks.Delete(ctx, h.ID); err != nil {
			t.Fatal(err)
		}
		raw.Do("GET", "/api/v1/webhooks/"+h.ID+"/deliveries", nil).Want(t, 404, "NOT_FOUND")
	})
}

// TestWebhookDisabledAfterThreeDays: an endpoint that fails every delivery
// for 3 days is disabled and says so; the delivery is given up.
func TestWebhookDisabledAfterThreeDays(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		clk := &testclock.Clock{}
		svc := e2etest.StartServiceAt(t, dsn, clk.Now, append([]string{"--rate-limit", "100000"}, e2etest.WebhookFlags...)...)
		c := svc.API(t, svc.DemoKey)
		rc := e2etest.NewHookReceiver(t, func(http.ResponseWriter, *http.Request, int) int { return http.StatusInternalServerError })
		h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL, Events: e2etest.AllEventTypes})
		e2etest.Must(t, h, err)
		d, err := c.Webhooks.Test(ctx, h.ID)
		e2etest.Must(t, d, err)
		for deadline := time.Now().Add(10 * time.Second); len(rc.Deliveries()) < 2; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no retry")
			}
		}
		got, err := c.Webhooks.Get(ctx, h.ID)
		if e2etest.Must(t, got, err).FailingSince == nil || !got.Enabled {
			t.Errorf("failing webhook: %+v", got)
		}
		clk.Advance(73 * time.Hour)
		deadline := time.Now().Add(15 * time.Second)
		for {
			got, err = c.Webhooks.Get(ctx, h.ID)
			if !e2etest.Must(t, got, err).Enabled {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not disabled after 3 days of failures: %+v", got)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got.DisabledAt == nil || !strings.Contains(got.DisabledReason, "HTTP 500") {
			t.Errorf("disabled webhook says %q at %v", got.DisabledReason, got.DisabledAt)
		}
		dl := waitDelivery(t, c, h.ID, d.ID, "failed")
		if dl.FinishedAt == nil || len(dl.Attempts) < 2 {
			t.Errorf("given-up delivery %+v", dl)
		}
		// Enabled again: the reason goes.
		on := true
		u, err := c.Webhooks.Update(ctx, h.ID, &client.WebhookUpdate{Enabled: &on})
		if e2etest.Must(t, u, err).DisabledReason != "" || u.DisabledAt != nil || u.FailingSince != nil {
			t.Errorf("enabled again: %+v", u)
		}
	})
}

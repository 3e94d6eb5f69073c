package webhooks

import (
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// TestWebhookBadInput: a webhook URL that is not absolute http(s), carries
// credentials, points at a loopback, private or link-local address, or is
// longer than 2,048 characters, an unknown event type, an empty or missing
// list: a 422 naming the field, nothing stored. The same for updates and
// for the filters of /events.
func TestWebhookBadInput(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn) // private addresses not allowed
		c, api, ctx := svc.Client(t, svc.DemoKey), svc.API(t, svc.DemoKey), t.Context()
		ok := []any{client.EventDocumentValid}
		for _, tc := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"relative", map[string]any{"url": "/hook", "events": ok}, "url"},
			{"no scheme", map[string]any{"url": "hooks.example.com/x", "events": ok}, "url"},
			{"ftp", map[string]any{"url": "ftp://hooks.example.com/x", "events": ok}, "url"},
			{"javascript", map[string]any{"url": "javascript:alert(1)", "events": ok}, "url"},
			{"empty", map[string]any{"url": "", "events": ok}, "url"},
			{"missing", map[string]any{"events": ok}, "url"},
			{"credentials", map[string]any{"url": "https://user:pass@hooks.example.com/x", "events": ok}, "url"},
			{"user only", map[string]any{"url": "https://user@hooks.example.com/x", "events": ok}, "url"},
			{"loopback", map[string]any{"url": "http://127.0.0.1:8080/x", "events": ok}, "url"},
			{"loopback v6", map[string]any{"url": "http://[::1]/x", "events": ok}, "url"},
			{"localhost", map[string]any{"url": "http://localhost/x", "events": ok}, "url"},
			{"private 10", map[string]any{"url": "https://10.1.2.3/x", "events": ok}, "url"},
			{"private 192.168", map[string]any{"url": "https://192.168.0.10/x", "events": ok}, "url"},
			{"private 172.16", map[string]any{"url": "https://172.16.5.4/x", "events": ok}, "url"},
			{"link-local (metadata)", map[string]any{"url": "http://169.254.169.254/latest/meta-data", "events": ok}, "url"},
			{"unspecified", map[string]any{"url": "http://0.0.0.0/x", "events": ok}, "url"},
			{"mapped v6", map[string]any{"url": "http://[::ffff:127.0.0.1]/x", "events": ok}, "url"},
			{"too long", map[string]any{"url": "https://hooks.example.com/" + strings.Repeat("a", 2048), "events": ok}, "url"},
			{"unknown type", map[string]any{"url": "https://hooks.example.com/x", "events": []any{"document.exploded"}}, "events[0]"},
			{"test type", map[string]any{"url": "https://hooks.example.com/x", "events": []any{client.EventDocumentValid, "webhook.test"}}, "events[1]"},
			{"empty list", map[string]any{"url": "https://hooks.example.com/x", "events": []any{}}, "events"},
			{"no list", map[string]any{"url": "https://hooks.example.com/x"}, "events"},
			{"long description", map[string]any{"url": "https://hooks.example.com/x", "events": ok, "description": strings.Repeat("d", 501)}, "description"},
			{"unknown field", map[string]any{"url": "https://hooks.example.com/x", "events": ok, "secret": "mine"}, "secret"},
		} {
			r := c.Do("POST", "/api/v1/webhooks", tc.body).Want(t, 422, "VALIDATION_FAILED")
			if r.FieldErrors()[tc.field] == nil {
				t.Errorf("%s: errors %v, want %s named", tc.name, r.FieldErrors(), tc.field)
			}
		}
		c.Do("POST", "/api/v1/webhooks", map[string]any{"url": 7, "events": ok}).Want(t, 400, "MALFORMED_JSON")
		c.Do("POST", "/api/v1/webhooks", map[string]any{"url": "https://hooks.example.com/x", "events": "document.valid"}).Want(t, 400, "MALFORMED_JSON")
		p, err := api.Webhooks.List(ctx, nil)
		if e2etest.Must(t, p, err).Meta.Total != 0 {
			t.Fatalf("refused webhooks were stored: %+v", p.Items)
		}

		// Updates are judged the same way and change nothing.
		h, err := api.Webhooks.Create(ctx, &client.Webhook{URL: "https://hooks.example.com/ok", Events: []string{client.EventDocumentValid}})
		e2etest.Must(t, h, err)
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"url": "http://10.0.0.1/x"}, "url"},
			{map[string]any{"url": "https://a:b@hooks.example.com/x"}, "url"},
			{map[string]any{"events": []any{}}, "events"},
			{map[string]any{"events": []any{"nope"}}, "events[0]"},
		} {
			if r := c.Do("PATCH", "/api/v1/webhooks/"+h.ID, tc.body).Want(t, 422, "VALIDATION_FAILED"); r.FieldErrors()[tc.field] == nil {
				t.Errorf("update %v: errors %v, want %s named", tc.body, r.FieldErrors(), tc.field)
			}
		}
		got, err := api.Webhooks.Get(ctx, h.ID)
		if e2etest.Must(t, got, err).URL != h.URL || len(got.Events) != 1 {
			t.Errorf("refused updates changed the webhook: %+v", got)
		}
		// Unknown ids.
		c.Do("GET", "/api/v1/webhooks/"+e2etest.NewID(), nil).Want(t, 404, "NOT_FOUND")
		c.Do("GET", "/api/v1/webhooks/not-an-id", nil).Want(t, 404, "NOT_FOUND")
		c.Do("PATCH", "/api/v1/webhooks/"+e2etest.NewID(), map[string]any{"description": "x"}).Want(t, 404, "NOT_FOUND")
		c.Do("DELETE", "/api/v1/webhooks/"+e2etest.NewID(), nil).Want(t, 404, "NOT_FOUND")
		c.Do("POST", "/api/v1/webhooks/"+e2etest.NewID()+"/test", nil).Want(t, 404, "NOT_FOUND")
		c.Do("POST", "/api/v1/webhooks/"+e2etest.NewID()+"/rotate-secret", nil).Want(t, 404, "NOT_FOUND")
		c.Do("GET", "/api/v1/webhooks/"+e2etest.NewID()+"/deliveries", nil).Want(t, 404, "NOT_FOUND")
		c.Do("POST", "/api/v1/webhooks/"+h.ID+"/deliveries/"+e2etest.NewID()+"/redeliver", nil).Want(t, 404, "NOT_FOUND")
		c.Do("POST", "/api/v1/webhooks/"+h.ID+"/deliveries/junk/redeliver", nil).Want(t, 404, "NOT_FOUND")

		// The filters of /events.
		if r := c.Do("GET", "/api/v1/events?type=document.exploded", nil).Want(t, 422, "VALIDATION_FAILED"); r.FieldErrors()["type"] == nil {
			t.Errorf("type=unknown: %v", r.FieldErrors())
		}
		for _, after := range []string{e2etest.NewID(), "junk"} {
			if r := c.Do("GET", "/api/v1/events?after="+after, nil).Want(t, 422, "VALIDATION_FAILED"); r.FieldErrors()["after"] == nil {
				t.Errorf("after=%s: %v", after, r.FieldErrors())
			}
		}
		c.Do("GET", "/api/v1/events?per_page=0", nil).Want(t, 422, "VALIDATION_FAILED")
	})
}

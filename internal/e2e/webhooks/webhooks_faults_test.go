package webhooks

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/client"
)

// TestWebhookFlakyReceiver: a receiver that fails 30 % of the attempts at
// random gets every event, in order per document, none lost, and the
// delivery log shows each attempt it saw.
func TestWebhookFlakyReceiver(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		_, c := e2etest.StartLifecycleAPI(t, dsn, e2etest.WebhookFlags...)
		rc := e2etest.NewHookReceiver(t, func(_ http.ResponseWriter, _ *http.Request, _ int) int {
			if rand.IntN(100) < 30 {
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		})
		h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL, Events: e2etest.AllEventTypes})
		e2etest.Must(t, h, err)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		const docs = 12
		want := map[string][]string{}
		for i := range docs {
			id := e2etest.ReadyInvoiceDoc(t, c, fmt.Sprintf("INV-FLAKY-%d", i), buyer)
			sub, err := c.Documents.Submit(ctx, id)
			e2etest.Want200(t, e2etest.Must(t, sub, err))
			want[id] = []string{client.EventDocumentSubmitted, client.EventDocumentValid}
		}
		for id := range want {
			e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 20*time.Second)
		}
		n := 0
		for id := range want {
			if n++; n > docs/2 {
				break
			}
			_, err := c.Documents.Cancel(ctx, id, "flaky test")
			e2etest.Must(t, id, err)
			want[id] = append(want[id], client.EventDocumentCancelled)
		}

		events, byDoc := e2etest.DocumentEvents(t, c)
		if diff := cmp.Diff(want, byDoc); diff != "" {
			t.Fatalf("events per document (-want +got):\n%s", diff)
		}
		ids := make([]string, len(events))
		for i, e := range events {
			ids[i] = e.ID
		}
		got := rc.WaitAccepted(t, ids, 60*time.Second)
		if diff := cmp.Diff(want, e2etest.DeliveredByDoc(t, got)); diff != "" {
			t.Errorf("deliveries per document, in the order accepted (-want +got):\n%s", diff)
		}
		// Every attempt the receiver saw is in the log, failures included.
		var attempts, failed int
		// The receiver has answered every attempt; the last ones' records may
		// still be on their way to the log (a busy machine): wait for them.
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			recorded := true
			for d, err := range deliveriesOf(t, c, h.ID) {
				if err != nil {
					t.Fatal(err)
				}
				recorded = recorded && d.State == "delivered"
			}
			if recorded {
				break
			}
		}
		for d, err := range deliveriesOf(t, c, h.ID) {
			if err != nil {
				t.Fatal(err)
			}
			if d.State != "delivered" {
				t.Errorf("delivery %s of %s is %s", d.ID, d.EventType, d.State)
			}
			for _, a := range d.Attempts {
				attempts++
				if a.StatusCode == http.StatusServiceUnavailable {
					failed++
					if !strings.Contains(a.Error, "503") {
						t.Errorf("failed attempt without its error: %+v", a)
					}
				}
			}
		}
		seen := len(rc.Deliveries())
		if attempts != seen {
			t.Errorf("the log holds %d attempts, the receiver saw %d", attempts, seen)
		}
		if failed == 0 {
			t.Errorf("no failed attempt in the log of %d attempts: the receiver did not fail", attempts)
		}
		t.Logf("%d events, %d attempts, %d failed", len(events), attempts, failed)
	})
}

// deliveriesOf yields every delivery of a webhook.
func deliveriesOf(t *testing.T, c *client.Client, id string) func(yield func(client.WebhookDelivery, error) bool) {
	return func(yield func(client.WebhookDelivery, error) bool) {
		for page := 1; ; page++ {
			p, err := c.Webhooks.Deliveries(t.Context(), id, &client.ListOptions{Page: page, PerPage: 100})
			if err != nil {
				yield(client.WebhookDelivery{}, err)
				return
			}
			for _, d := range p.Items {
				if !yield(d, nil) {
					return
				}
			}
			if page >= p.Meta.LastPage {
				return
			}
		}
	}
}

// TestWebhookBadReceivers: a receiver that is slow (past the 10-second
// limit), answers a redirect, answers 10 MB, or closes the connection: the
// attempt is recorded as failed, the redirect not followed, and the event
// delivered by a retry; the service answers meanwhile.
func TestWebhookBadReceivers(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc, c := e2etest.StartLifecycleAPI(t, dsn, e2etest.WebhookFlags...)
		type bad struct {
			name   string
			answer func(w http.ResponseWriter, r *http.Request, n int) int
			check  func(a client.Attempt) bool
		}
		cases := []bad{
			{"slow", func(w http.ResponseWriter, r *http.Request, n int) int {
				if n == 0 {
					select {
					case <-r.Context().Done():
					case <-time.After(12 * time.Second):
					}
				}
				return http.StatusOK
			}, func(a client.Attempt) bool { return a.StatusCode == 0 && a.DurationMS >= 9_000 && a.Error != "" }},
			{"redirect", func(w http.ResponseWriter, r *http.Request, n int) int {
				if n == 0 {
					w.Header().Set("Location", "/elsewhere")
					return http.StatusFound
				}
				return http.StatusOK
			}, func(a client.Attempt) bool {
				return a.StatusCode == http.StatusFound && strings.Contains(a.Error, "302")
			}},
			{"10 MB", func(w http.ResponseWriter, r *http.Request, n int) int {
				if n == 0 {
					w.WriteHeader(http.StatusOK)
					chunk := []byte(strings.Repeat("x", 1<<20))
					for range 10 {
						if _, err := w.Write(chunk); err != nil {
							break
						}
					}
					return 0
				}
				return http.StatusOK
			}, func(a client.Attempt) bool { return strings.Contains(a.Error, "longer than") }},
			{"closes", func(w http.ResponseWriter, r *http.Request, n int) int {
				if n == 0 {
					conn, _, err := http.NewResponseController(w).Hijack()
					if err == nil {
						conn.Close()
					}
					return 0
				}
				return http.StatusOK
			}, func(a client.Attempt) bool { return a.StatusCode == 0 && a.Error != "" }},
		}
		receivers := make([]*e2etest.HookReceiver, len(cases))
		hooks := make([]*client.Webhook, len(cases))
		for i, tc := range cases {
			receivers[i] = e2etest.NewHookReceiver(t, tc.answer)
			h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: receivers[i].URL + "/hook", Events: e2etest.AllEventTypes, Description: tc.name})
			hooks[i] = e2etest.Must(t, h, err)
			d, err := c.Webhooks.Test(ctx, h.ID)
			e2etest.Must(t, d, err)
		}
		// The service is not slowed meanwhile.
		start := time.Now()
		for range 20 {
			_, err := c.Profile.Get(ctx)
			e2etest.Must(t, 0, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("20 requests took %s while receivers misbehave", took)
		}
		for i, tc := range cases {
			deadline := time.Now().Add(30 * time.Second)
			var d client.WebhookDelivery
			for time.Now().Before(deadline) {
				p, err := c.Webhooks.Deliveries(ctx, hooks[i].ID, nil)
				if len(e2etest.Must(t, p, err).Items) == 1 {
					d = p.Items[0]
				}
				if d.State == "delivered" {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if d.State != "delivered" || len(d.Attempts) != 2 {
				t.Errorf("%s: delivery %+v, want delivered at the second attempt", tc.name, d)
				continue
			}
			if a := d.Attempts[0]; !tc.check(a) {
				t.Errorf("%s: first attempt recorded as %+v", tc.name, a)
			}
			if a := d.Attempts[1]; a.StatusCode != 200 || a.Error != "" {
				t.Errorf("%s: second attempt %+v", tc.name, a)
			}
			for _, g := range receivers[i].Deliveries() {
				if g.Path != "/hook" {
					t.Errorf("%s: the receiver got a request at %s (a redirect followed?)", tc.name, g.Path)
				}
			}
		}
		_ = svc
	})
}

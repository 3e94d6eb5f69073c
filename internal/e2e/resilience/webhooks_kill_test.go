package resilience

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
)

// webhookReplicaFlags are the serve flags of the real processes of the
// webhook tests.
func webhookReplicaFlags() []string {
	return append([]string{"--rate-limit", "100000", "--sandbox-delay", "0", "--submit-wait", "2s", "--workers", "2",
		"--log-format", "json"}, e2etest.WebhookFlags...)
}

// gatedAnswer makes a receiver hang every request until open is set (the
// request ends when its client goes), then answer 200.
func gatedAnswer(open *atomic.Bool) func(w http.ResponseWriter, r *http.Request, n int) int {
	return func(w http.ResponseWriter, r *http.Request, _ int) int {
		for !open.Load() {
			select {
			case <-r.Context().Done():
				return 0
			case <-time.After(10 * time.Millisecond):
			}
		}
		return http.StatusOK
	}
}

// TestWebhookKilled: the real binary killed (SIGKILL) after the status
// changes were recorded, with their deliveries in flight (the receiver
// holding them), then started again: every event is delivered.
func TestWebhookKilled(t *testing.T) {
	t.Parallel()
	bin := servetest.Build(t)
	e2etest.EachEngineParallel(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		var open atomic.Bool
		rc := e2etest.NewHookReceiver(t, gatedAnswer(&open))
		first := servetest.StartReplica(t, bin, "first", servetest.ChildEnv(), dsn, webhookReplicaFlags()...)
		first.WaitListening(t)
		key, _ := servetest.ReplicasDemoKey(t, []*servetest.Replica{first})
		c := client.New(first.URL, key, client.WithRetries(0))
		p, err := c.Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), nil)
		e2etest.Must(t, p, err)
		h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL, Events: e2etest.AllEventTypes})
		e2etest.Must(t, h, err)
		b, err := c.Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
		buyer := e2etest.Must(t, b, err).ID
		var ids []string
		for i := range 4 {
			id := e2etest.ReadyInvoiceDoc(t, c, fmt.Sprintf("INV-KILL-%d", i), buyer)
			sub, err := c.Documents.Submit(ctx, id)
			e2etest.Must(t, sub, err)
			ids = append(ids, id)
		}
		for _, id := range ids {
			e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 30*time.Second)
		}
		events, _ := e2etest.DocumentEvents(t, c)
		// The first deliveries are in flight, held by the receiver.
		for deadline := time.Now().Add(10 * time.Second); len(rc.Deliveries()) == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no delivery began")
			}
		}
		first.Kill(t)
		open.Store(true)

		second := servetest.StartReplica(t, bin, "second", servetest.ChildEnv(), dsn, webhookReplicaFlags()...)
		second.WaitListening(t)
		ev := make([]string, len(events))
		for i, e := range events {
			ev[i] = e.ID
		}
		// Taken over once the dead process's leases expire (20 s).
		got := rc.WaitAccepted(t, ev, 60*time.Second)
		want := map[string][]string{}
		for _, id := range ids {
			want[id] = []string{client.EventDocumentSubmitted, client.EventDocumentValid}
		}
		if byDoc := e2etest.DeliveredByDoc(t, got); fmt.Sprint(byDoc) != fmt.Sprint(want) {
			t.Errorf("delivered per document %v, want %v", byDoc, want)
		}
	})
}

// TestWebhookReplicas: three replicas on one PostgreSQL database share the
// deliveries; one is killed (SIGKILL) while the receiver fails 30 % of the
// attempts: every event is delivered, in order per document.
func TestWebhookReplicas(t *testing.T) {
	t.Parallel()
	if os.Getenv(testdb.EnvPostgres) == "" {
		t.Skipf("PostgreSQL only: set %s to run it", testdb.EnvPostgres)
	}
	ctx := t.Context()
	bin := servetest.Build(t)
	dsn := testdb.Postgres(t, os.Getenv)
	rs := servetest.StartReplicas(t, bin, dsn, 3, webhookReplicaFlags()...)
	key, _ := servetest.ReplicasDemoKey(t, rs)
	cs := make([]*client.Client, len(rs))
	for i, r := range rs {
		cs[i] = client.New(r.URL, key, client.WithRetries(0))
	}
	rc := e2etest.NewHookReceiver(t, func(_ http.ResponseWriter, _ *http.Request, _ int) int {
		if rand.IntN(100) < 30 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	})
	p, err := cs[0].Profile.Update(ctx, e2etest.ProfileOf(t, e2etest.SampleProfile()), nil)
	e2etest.Must(t, p, err)
	h, err := cs[1].Webhooks.Create(ctx, &client.Webhook{URL: rc.URL, Events: e2etest.AllEventTypes})
	e2etest.Must(t, h, err)
	b, err := cs[2].Buyers.Create(ctx, e2etest.PartyOf(t, e2etest.SampleBuyer()))
	buyer := e2etest.Must(t, b, err).ID
	want := map[string][]string{}
	const n = 18
	for i := range n {
		c := cs[i%3]
		if i >= n/2 {
			c = cs[i%2] // the third is dead by then
		}
		if i == n/2 {
			rs[2].Kill(t)
		}
		id := e2etest.ReadyInvoiceDoc(t, c, fmt.Sprintf("INV-RWH-%02d", i), buyer)
		sub, err := c.Documents.Submit(ctx, id)
		e2etest.Must(t, sub, err)
		want[id] = []string{client.EventDocumentSubmitted, client.EventDocumentValid}
	}
	for id := range want {
		e2etest.WaitStatusTyped(t, cs[0], id, client.StatusValid, 60*time.Second)
	}
	events, byDoc := e2etest.DocumentEvents(t, cs[1])
	if fmt.Sprint(byDoc) != fmt.Sprint(want) {
		t.Errorf("events per document %v, want %v", byDoc, want)
	}
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	got := rc.WaitAccepted(t, ids, 90*time.Second)
	if byDoc := e2etest.DeliveredByDoc(t, got); fmt.Sprint(byDoc) != fmt.Sprint(want) {
		t.Errorf("delivered per document %v, want %v", byDoc, want)
	}
}

package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
)

// webhookReplicaFlags are the serve flags of the real processes of the
// webhook tests.
func webhookReplicaFlags() []string {
	return append([]string{"--rate-limit", "100000", "--sandbox-delay", "0", "--submit-wait", "2s", "--workers", "2",
		"--log-format", "json"}, webhookFlags...)
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
	bin := servetest.Build(t)
	eachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		var open atomic.Bool
		rc := newHookReceiver(t, gatedAnswer(&open))
		first := servetest.StartReplica(t, bin, "first", servetest.ChildEnv(), dsn, webhookReplicaFlags()...)
		first.WaitListening(t)
		key, _ := servetest.ReplicasDemoKey(t, []*servetest.Replica{first})
		c := client.New(first.URL, key, client.WithRetries(0))
		p, err := c.Profile.Update(ctx, profileOf(t, sampleProfile()), nil)
		must(t, p, err)
		h, err := c.Webhooks.Create(ctx, &client.Webhook{URL: rc.URL, Events: allEventTypes})
		must(t, h, err)
		b, err := c.Buyers.Create(ctx, partyOf(t, sampleBuyer()))
		buyer := must(t, b, err).ID
		var ids []string
		for i := range 4 {
			id := readyInvoiceDoc(t, c, fmt.Sprintf("INV-KILL-%d", i), buyer)
			sub, err := c.Documents.Submit(ctx, id)
			must(t, sub, err)
			ids = append(ids, id)
		}
		for _, id := range ids {
			waitStatusTyped(t, c, id, client.StatusValid, 30*time.Second)
		}
		events, _ := documentEvents(t, c)
		// The first deliveries are in flight, held by the receiver.
		for deadline := time.Now().Add(10 * time.Second); len(rc.deliveries()) == 0; time.Sleep(10 * time.Millisecond) {
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
		got := rc.waitAccepted(t, ev, 60*time.Second)
		want := map[string][]string{}
		for _, id := range ids {
			want[id] = []string{client.EventDocumentSubmitted, client.EventDocumentValid}
		}
		if byDoc := deliveredByDoc(t, got); fmt.Sprint(byDoc) != fmt.Sprint(want) {
			t.Errorf("delivered per document %v, want %v", byDoc, want)
		}
	})
}

// TestWebhookReplicas: three replicas on one PostgreSQL database share the
// deliveries; one is killed (SIGKILL) while the receiver fails 30 % of the
// attempts: every event is delivered, in order per document.
func TestWebhookReplicas(t *testing.T) {
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
	rc := newHookReceiver(t, func(_ http.ResponseWriter, _ *http.Request, _ int) int {
		if rand.IntN(100) < 30 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	})
	p, err := cs[0].Profile.Update(ctx, profileOf(t, sampleProfile()), nil)
	must(t, p, err)
	h, err := cs[1].Webhooks.Create(ctx, &client.Webhook{URL: rc.URL, Events: allEventTypes})
	must(t, h, err)
	b, err := cs[2].Buyers.Create(ctx, partyOf(t, sampleBuyer()))
	buyer := must(t, b, err).ID
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
		id := readyInvoiceDoc(t, c, fmt.Sprintf("INV-RWH-%02d", i), buyer)
		sub, err := c.Documents.Submit(ctx, id)
		must(t, sub, err)
		want[id] = []string{client.EventDocumentSubmitted, client.EventDocumentValid}
	}
	for id := range want {
		waitStatusTyped(t, cs[0], id, client.StatusValid, 60*time.Second)
	}
	events, byDoc := documentEvents(t, cs[1])
	if fmt.Sprint(byDoc) != fmt.Sprint(want) {
		t.Errorf("events per document %v, want %v", byDoc, want)
	}
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	got := rc.waitAccepted(t, ids, 90*time.Second)
	if byDoc := deliveredByDoc(t, got); fmt.Sprint(byDoc) != fmt.Sprint(want) {
		t.Errorf("delivered per document %v, want %v", byDoc, want)
	}
}

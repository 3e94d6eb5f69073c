package resilience

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/servetest"
	"github.com/einvoice/einvoice/internal/testdb"
	"github.com/einvoice/einvoice/internal/testsmtp"
)

// mailReplicaFlags are the serve flags of the real processes of the mail
// tests: a mail's lease is six times --submit-wait (12 s).
func mailReplicaFlags(t *testing.T, srv *testsmtp.Server) []string {
	return []string{"--rate-limit", "100000", "--sandbox-delay", "0", "--submit-wait", "2s", "--log-format", "json",
		"--smtp-url", srv.URL(), "--mail-from", "einvoice@supplier.example", "--smtp-ca", srv.CAFile(t),
		"--mail-retry-base", "100ms", "--smtp-timeout", "20s"}
}

// validMailed creates n Valid invoices, each to a buyer of its own address
// (to0@..., to1@...), through c, and returns their ids and addresses.
func validMailed(t *testing.T, c *client.Client, prefix string, n int) (ids, addrs []string) {
	t.Helper()
	ctx := t.Context()
	for i := range n {
		addr := fmt.Sprintf("%s%d@pembeli.example", prefix, i)
		p := e2etest.SampleBuyerParty()
		p.Name, p.Contact.Email = "Pembeli "+addr, addr
		b, err := c.Buyers.Create(ctx, p)
		id := e2etest.ReadyInvoiceDoc(t, c, fmt.Sprintf("%s-%d", prefix, i), e2etest.Must(t, b, err).ID)
		sub, err := c.Documents.Submit(ctx, id)
		e2etest.Must(t, sub, err)
		ids, addrs = append(ids, id), append(addrs, addr)
	}
	return ids, addrs
}

// waitDelivered waits until every document's mail is recorded sent, and
// returns their deliveries.
func waitDelivered(t *testing.T, c *client.Client, ids []string, within time.Duration) map[string]*client.DocumentDelivery {
	t.Helper()
	out := map[string]*client.DocumentDelivery{}
	deadline := time.Now().Add(within)
	for _, id := range ids {
		for {
			d, err := c.Documents.Get(t.Context(), id)
			if dv := e2etest.Must(t, d, err).EmailDelivery; dv != nil && dv.State == "sent" {
				out[id] = dv
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("document %s: emailDelivery %+v after %s, want sent", id, d.EmailDelivery, within)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return out
}

// TestMailKilled: the real binary killed (SIGKILL) with two messages in
// hand: one whose whole data the mail server took (its answer held), one
// whose connection the server never answered. Started again, it records the
// first sent, unconfirmed, without sending it again, and sends the second:
// each buyer receives its mail once, counted at the server.
func TestMailKilled(t *testing.T) {
	t.Parallel()
	bin := servetest.Build(t)
	e2etest.EachEngineParallel(t, func(t *testing.T, dsn string) {
		srv := testsmtp.Start(t, testsmtp.Options{TLS: true})
		release := srv.HoldDataReply()
		srv.HangNext()
		first := servetest.StartReplica(t, bin, "first", servetest.ChildEnv(), dsn, mailReplicaFlags(t, srv)...)
		first.WaitListening(t)
		key, _ := servetest.ReplicasDemoKey(t, []*servetest.Replica{first})
		c := client.New(first.URL, key, client.WithRetries(0))
		e2etest.Must(t, e2etest.Got(c.Profile.Update(t.Context(), e2etest.ProfileOf(t, e2etest.SampleProfile()), nil))(t), nil)
		ids, addrs := validMailed(t, c, "kill", 2)
		// One message is at the server, its answer held; the other's
		// connection hangs.
		srv.Wait(t, 30*time.Second, "one message taken and a connection hung", func() bool { return srv.Count() == 1 && srv.Connections() >= 2 })
		first.Kill(t)
		release()

		second := servetest.StartReplica(t, bin, "second", servetest.ChildEnv(), dsn, mailReplicaFlags(t, srv)...)
		second.WaitListening(t)
		c2 := client.New(second.URL, key, client.WithRetries(0))
		got := waitDelivered(t, c2, ids, 90*time.Second)
		unconfirmed := 0
		for _, d := range got {
			if d.Unconfirmed {
				unconfirmed++
			}
		}
		if unconfirmed != 1 {
			t.Errorf("%d deliveries unconfirmed, want 1 (the one whose answer the kill cut): %+v", unconfirmed, got)
		}
		for _, a := range addrs {
			if n := srv.CountFor(a); n != 1 {
				t.Errorf("%s received %d messages, want 1", a, n)
			}
		}
	})
}

// TestMailReplicas: two replicas on one PostgreSQL database share the
// outbox; one is killed while they send, some of their connections hung.
// No buyer receives its mail twice (counted at the server), the survivor
// taking over the killed one's messages once their lease expires, and a
// buyer who received nothing is one whose message the service flagged
// unconfirmed: the kill fell between the in-flight mark and the end of the
// data, where SMTP cannot tell a taken message from a dropped one (RFC
// 1047) and the service chose never to send twice. The killed replica held
// at most one batch (one worker, four messages), so at most four such.
func TestMailReplicas(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t, os.Getenv)
	bin := servetest.Build(t)
	srv := testsmtp.Start(t, testsmtp.Options{TLS: true})
	rs := servetest.StartReplicas(t, bin, dsn, 2, mailReplicaFlags(t, srv)...)
	key, _ := servetest.ReplicasDemoKey(t, rs)
	a := client.New(rs[0].URL, key, client.WithRetries(0))
	b := client.New(rs[1].URL, key, client.WithRetries(0))
	e2etest.Must(t, e2etest.Got(a.Profile.Update(t.Context(), e2etest.ProfileOf(t, e2etest.SampleProfile()), nil))(t), nil)
	// Four connections hang, whichever replica opens them: the killed
	// one's messages wait for their lease, the survivor's for its timeout.
	for range 4 {
		srv.HangNext()
	}
	const n = 30
	ids, addrs := validMailed(t, a, "rep", n)
	srv.Wait(t, 60*time.Second, "a few messages sent and four connections hung", func() bool { return srv.Count() >= 3 && srv.Connections() >= 7 })
	rs[0].Kill(t)
	got := waitDelivered(t, b, ids, 2*time.Minute)
	missing := 0
	for i, addr := range addrs {
		switch received := srv.CountFor(addr); {
		case received == 1:
		case received == 0 && got[ids[i]].Unconfirmed:
			missing++
			t.Logf("%s received nothing, its delivery flagged unconfirmed: the kill fell inside the in-flight window", addr)
		default:
			t.Errorf("%s received %d messages, want 1 (or 0 flagged unconfirmed); delivery %+v", addr, received, got[ids[i]])
		}
	}
	if missing > 4 {
		t.Errorf("%d messages unconfirmed and not received, want at most the killed replica's one batch (4)", missing)
	}
	if srv.Count() != n-missing {
		t.Errorf("the server took %d messages, want %d", srv.Count(), n-missing)
	}
}

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
)

// webhookFlags are the serve flags of the webhook tests: their receivers
// are on 127.0.0.1, and retries come quickly.
var webhookFlags = []string{"--webhook-allow-private", "--webhook-retry-base", "100ms"}

// allEventTypes are the event types of documents.
var allEventTypes = []string{client.EventDocumentSubmitted, client.EventDocumentValid, client.EventDocumentInvalid,
	client.EventDocumentCancelled, client.EventDocumentRejectionRequested, client.EventDocumentSubmissionFailed}

// hookDelivery is one request a receiver got.
type hookDelivery struct {
	Path   string
	Header http.Header
	Body   []byte
	Event  client.APIEvent
	Status int // what the receiver answered
}

// hookReceiver is a webhook endpoint on 127.0.0.1 that records every
// request; answer decides the status of each (200 when nil) and may write
// the answer itself (returning 0).
type hookReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []hookDelivery
	answer func(w http.ResponseWriter, r *http.Request, n int) int
}

func newHookReceiver(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int) int) *hookReceiver {
	rc := &hookReceiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev client.APIEvent
		_ = json.Unmarshal(body, &ev)
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, hookDelivery{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Event: ev})
		rc.mu.Unlock()
		status := http.StatusOK
		if rc.answer != nil {
			status = rc.answer(w, r, n)
		}
		rc.mu.Lock()
		rc.got[n].Status = status
		rc.mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// deliveries returns what the receiver got so far.
func (rc *hookReceiver) deliveries() []hookDelivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hookDelivery(nil), rc.got...)
}

// accepted returns the deliveries the receiver answered 2xx, in order.
func (rc *hookReceiver) accepted() []hookDelivery {
	var out []hookDelivery
	for _, d := range rc.deliveries() {
		if d.Status >= 200 && d.Status < 300 {
			out = append(out, d)
		}
	}
	return out
}

// waitAccepted waits until the receiver accepted every event id of want
// (at least once).
func (rc *hookReceiver) waitAccepted(t *testing.T, want []string, within time.Duration) []hookDelivery {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := rc.accepted()
		seen := map[string]bool{}
		for _, d := range got {
			seen[d.Header.Get("Einvoice-Event-Id")] = true
		}
		missing := 0
		for _, id := range want {
			if !seen[id] {
				missing++
			}
		}
		if missing == 0 {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the receiver has not accepted %d of %d events (%d requests)", within, missing, len(want), len(rc.deliveries()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// documentEvents returns the tenant's events oldest first (through after=
// from the oldest, which checks it too), grouped by document.
func documentEvents(t *testing.T, c *client.Client) ([]client.APIEvent, map[string][]string) {
	t.Helper()
	var newest []client.APIEvent
	for e, err := range c.Events.All(t.Context(), &client.EventListOptions{ListOptions: client.ListOptions{PerPage: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		newest = append(newest, e)
	}
	if len(newest) == 0 {
		return nil, nil
	}
	oldest := newest[len(newest)-1]
	all := []client.APIEvent{oldest}
	for e, err := range c.Events.All(t.Context(), &client.EventListOptions{After: oldest.ID, ListOptions: client.ListOptions{PerPage: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, e)
	}
	if len(all) != len(newest) {
		t.Fatalf("after= the oldest gave %d events, the list %d", len(all)-1, len(newest))
	}
	for i := range all {
		if all[i].ID != newest[len(newest)-1-i].ID {
			t.Fatalf("after= is not the list reversed at %d: %s vs %s", i, all[i].ID, newest[len(newest)-1-i].ID)
		}
	}
	byDoc := map[string][]string{}
	for _, e := range all {
		st, err := e.Document()
		if err != nil {
			t.Fatalf("event %s: data %s: %v", e.ID, e.Data, err)
		}
		byDoc[st.ID] = append(byDoc[st.ID], e.Type)
	}
	return all, byDoc
}

// deliveredByDoc groups the events a receiver accepted by document, in the
// order it accepted them, each event once (the first acceptance).
func deliveredByDoc(t *testing.T, got []hookDelivery) map[string][]string {
	t.Helper()
	seen := map[string]bool{}
	out := map[string][]string{}
	for _, d := range got {
		id := d.Header.Get("Einvoice-Event-Id")
		if seen[id] || d.Event.Type == client.EventWebhookTest {
			continue
		}
		seen[id] = true
		st, err := d.Event.Document()
		if err != nil {
			t.Fatalf("delivery %s: %v", d.Body, err)
		}
		out[st.ID] = append(out[st.ID], d.Event.Type)
	}
	return out
}

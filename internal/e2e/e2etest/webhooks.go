package e2etest

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

// WebhookFlags are the serve flags of the webhook tests: their receivers
// are on 127.0.0.1, and retries come quickly.
var WebhookFlags = []string{"--webhook-allow-private", "--webhook-retry-base", "100ms"}

// AllEventTypes are the event types of documents.
var AllEventTypes = []string{client.EventDocumentSubmitted, client.EventDocumentValid, client.EventDocumentInvalid,
	client.EventDocumentCancelled, client.EventDocumentRejectionRequested, client.EventDocumentSubmissionFailed,
	client.EventDocumentDelivered, client.EventDocumentDeliveryFailed}

// HookDelivery is one request a receiver got.
type HookDelivery struct {
	Path   string
	Header http.Header
	Body   []byte
	Event  client.APIEvent
	Status int // what the receiver answered
}

// HookReceiver is a webhook endpoint on 127.0.0.1 that records every
// request; answer decides the status of each (200 when nil) and may write
// the answer itself (returning 0).
type HookReceiver struct {
	*httptest.Server
	Mu     sync.Mutex
	Got    []HookDelivery
	Answer func(w http.ResponseWriter, r *http.Request, n int) int
}

func NewHookReceiver(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int) int) *HookReceiver {
	rc := &HookReceiver{Answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev client.APIEvent
		_ = json.Unmarshal(body, &ev)
		rc.Mu.Lock()
		n := len(rc.Got)
		rc.Got = append(rc.Got, HookDelivery{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Event: ev})
		rc.Mu.Unlock()
		status := http.StatusOK
		if rc.Answer != nil {
			status = rc.Answer(w, r, n)
		}
		rc.Mu.Lock()
		rc.Got[n].Status = status
		rc.Mu.Unlock()
		if status != 0 {
			w.WriteHeader(status)
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// Deliveries returns what the receiver got so far.
func (rc *HookReceiver) Deliveries() []HookDelivery {
	rc.Mu.Lock()
	defer rc.Mu.Unlock()
	return append([]HookDelivery(nil), rc.Got...)
}

// Accepted returns the deliveries the receiver answered 2xx, in order.
func (rc *HookReceiver) Accepted() []HookDelivery {
	var out []HookDelivery
	for _, d := range rc.Deliveries() {
		if d.Status >= 200 && d.Status < 300 {
			out = append(out, d)
		}
	}
	return out
}

// WaitAccepted waits until the receiver accepted every event id of want
// (at least once).
func (rc *HookReceiver) WaitAccepted(t *testing.T, want []string, within time.Duration) []HookDelivery {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := rc.Accepted()
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
			t.Fatalf("after %s the receiver has not accepted %d of %d events (%d requests)", within, missing, len(want), len(rc.Deliveries()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// DocumentEvents returns the tenant's events oldest first (through after=
// from the oldest, which checks it too), grouped by document.
func DocumentEvents(t *testing.T, c *client.Client) ([]client.APIEvent, map[string][]string) {
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

// DeliveredByDoc groups the events a receiver accepted by document, in the
// order it accepted them, each event once (the first acceptance).
func DeliveredByDoc(t *testing.T, got []HookDelivery) map[string][]string {
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

package mail

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/e2e/e2etest"
)

// validInvoice creates, validates and submits an invoice to buyerID and
// waits until it is Valid; it returns its id and status.
func validInvoice(t *testing.T, c *client.Client, serial, buyerID string) (string, *client.SubmissionStatus) {
	t.Helper()
	id := e2etest.ReadyInvoiceDoc(t, c, serial, buyerID)
	_, err := c.Documents.Submit(t.Context(), id)
	if err != nil {
		t.Fatalf("submit %s: %v", serial, err)
	}
	return id, e2etest.WaitStatusTyped(t, c, id, client.StatusValid, 30*time.Second)
}

// buyer creates a buyer with the given e-mail ("" for none).
func buyer(t *testing.T, c *client.Client, name, email string) string {
	t.Helper()
	p := e2etest.SampleBuyerParty()
	p.Name, p.Contact.Email = name, email
	b, err := c.Buyers.Create(t.Context(), p)
	return e2etest.Must(t, b, err).ID
}

// messages returns the tenant's messages (one page of up to 100), newest
// first, as the API lists them.
func messages(t *testing.T, c *e2etest.RawClient, query string) []map[string]any {
	t.Helper()
	r := c.Do("GET", "/api/v1/mail?perPage=100"+query, nil).Want(t, 200, "")
	var out []map[string]any
	for _, it := range r.Body["data"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// documentMessages returns the messages of one document.
func documentMessages(t *testing.T, c *e2etest.RawClient, id string) []map[string]any {
	t.Helper()
	return messages(t, c, "&documentId="+id)
}

// waitMessageState waits until the newest message of the document is in
// state, and returns it.
func waitMessageState(t *testing.T, c *e2etest.RawClient, docID, state string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ms := documentMessages(t, c, docID)
		if len(ms) > 0 && ms[0]["state"] == state {
			return ms[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the messages of %s after %s: %v; want the newest %s", docID, within, ms, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// strs is a JSON array of strings.
func strs(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, fmt.Sprint(s))
	}
	return out
}

// wantContains fails when s lacks any of subs.
func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s = %q, want it to contain %q", what, s, sub)
		}
	}
}

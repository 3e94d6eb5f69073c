package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestAudit: the middleware records each answered change whose actor was
// set, with the route, the resource (the path's, a create's, or the one the
// handler names), the outcome and the error code; it records no read and no
// request without an actor, and a panic as failed.
func TestAudit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []einvoice.AuditEntry
	au := &Audit{Types: map[string]string{"invoices": "document"}, Record: func(_ context.Context, a einvoice.Actor, e einvoice.AuditEntry) {
		mu.Lock()
		defer mu.Unlock()
		e.ActorName, e.Address, e.UserAgent = a.Name, a.Address, a.UserAgent
		got = append(got, e)
	}}
	signed := func(h http.HandlerFunc) http.Handler {
		return au.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h(w, r.WithContext(einvoice.WithActor(r.Context(), einvoice.Actor{Kind: einvoice.ActorKey, Name: "ci"})))
		}))
	}
	root := NewRoot(RootOptions{})
	root.Handle("POST /v1/invoices", signed(func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusCreated, map[string]any{"success": true, "data": map[string]any{"id": "d1", "x": 1}})
	}))
	root.Handle("POST /v1/invoices/{id}/submit", signed(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, nil, einvoice.Errorf(einvoice.CodeDocumentNotReady, "not ready"))
	}))
	root.Handle("GET /v1/invoices/{id}", signed(func(w http.ResponseWriter, r *http.Request) {}))
	root.Handle("DELETE /v1/anonymous/{id}", au.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	root.Handle("POST /r/{token}", signed(func(w http.ResponseWriter, r *http.Request) {
		AuditResource(r.Context(), "receipt", "rc1", "asked")
		http.Redirect(w, r, "/r/x", http.StatusSeeOther)
	}))
	root.Handle("PUT /v1/boom/{id}", signed(func(w http.ResponseWriter, r *http.Request) { panic("boom") }))
	srv := httptest.NewServer(root)
	defer srv.Close()
	for _, c := range []struct{ method, path string }{{"POST", "/v1/invoices"}, {"POST", "/v1/invoices/d1/submit"},
		{"GET", "/v1/invoices/d1"}, {"DELETE", "/v1/anonymous/a1"}, {"POST", "/r/secret-token"}, {"PUT", "/v1/boom/b1"}} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader("{}"))
		req.Header.Set("User-Agent", "audit-test")
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	e := func(action, typ, id string, status int, outcome einvoice.AuditOutcome, detail string) einvoice.AuditEntry {
		return einvoice.AuditEntry{ActorName: "ci", Address: "127.0.0.1", UserAgent: "audit-test", Action: action, ResourceType: typ,
			ResourceID: id, Status: status, Outcome: outcome, Detail: detail}
	}
	want := []einvoice.AuditEntry{
		e("POST /v1/invoices", "document", "d1", 201, einvoice.AuditOK, ""),
		e("POST /v1/invoices/{id}/submit", "document", "d1", 422, einvoice.AuditRefused, "DOCUMENT_NOT_READY"),
		e("POST /r/{token}", "receipt", "rc1", 303, einvoice.AuditOK, "asked"),
		e("PUT /v1/boom/{id}", "boom", "b1", 500, einvoice.AuditFailed, ""),
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

package security

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/servetest"
)

// secReadWriteReads are the reads only a read-write key may make: the
// audit log (DECISIONS 20).
var secReadWriteReads = map[string]bool{"GET /api/v1/audit-log": true}

// secWithoutOwnAttempts is a page of the audit log without the entries of
// the caller's own refused attempts on ids it does not own (404): they name
// the ids it sent, which the object-level test gives as another tenant's.
func secWithoutOwnAttempts(t *testing.T, r *e2etest.Response) *e2etest.Response {
	t.Helper()
	data, _ := r.Body["data"].([]any)
	kept := []any{}
	for _, item := range data {
		e, _ := item.(map[string]any)
		if e["outcome"] == "refused" && e["status"] == float64(404) {
			continue
		}
		kept = append(kept, item)
	}
	raw, err := json.Marshal(kept)
	if err != nil {
		t.Fatal(err)
	}
	return &e2etest.Response{Status: r.Status, Header: r.Header, Raw: raw, Body: map[string]any{"data": kept}}
}

// TestSecurityAuditTrail: every change through the API is in the tenant's
// audit log, readable by read-write keys only: a document's create,
// validation and submission by the key, its verdict by the service, a
// read-only key's refused write; the chain verifies while the service runs.
func TestSecurityAuditTrail(t *testing.T) {
	t.Parallel()
	e2etest.EachEngineParallel(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--rate-limit", "100000", "--sandbox-delay", "0")
		api := svc.API(t, svc.DemoKey)
		buyer, err := api.Buyers.Create(t.Context(), secBuyer(t))
		buyerID := e2etest.Must(t, buyer, err).ID
		id := e2etest.ReadyInvoiceDoc(t, api, "AUDIT-1", buyerID)
		e2etest.TypedSubmit(t, api, id)
		e2etest.WaitStatusTyped(t, api, id, client.StatusValid, 30*time.Second)

		page, err := api.AuditLog.List(t.Context(), &client.AuditListOptions{Resource: "document:" + id})
		e2etest.Must(t, page, err)
		var actions []string
		for _, e := range page.Items {
			actions = append(actions, e.Actor.Kind+" "+e.Action)
		}
		for _, want := range []string{"key POST /api/v1/invoices", "key POST /api/v1/documents/{id}/validate",
			"key POST /api/v1/documents/{id}/submit", "service document.valid"} {
			if !slices.Contains(actions, want) {
				t.Errorf("the document's entries %q lack %q", actions, want)
			}
		}

		tenants, err := servetest.Store(t, dsn).ListTenants(t.Context())
		tenantID := e2etest.Must(t, tenants, err)[0].ID
		roKey := e2etest.SecKey(t, dsn, tenantID, "--read-only")
		ro := svc.API(t, roKey)
		var ce *client.Error
		if _, err := ro.AuditLog.List(t.Context(), nil); !errors.As(err, &ce) || ce.StatusCode != 403 || ce.Code != client.CodeForbidden {
			t.Errorf("a read-only key's audit log: %v, want 403 FORBIDDEN", err)
		}
		if _, err := ro.Buyers.Create(t.Context(), secBuyer(t)); !errors.As(err, &ce) || ce.StatusCode != 403 {
			t.Fatalf("a read-only key's create: %v, want 403", err)
		}
		refused, err := api.AuditLog.List(t.Context(), &client.AuditListOptions{Action: "POST /api/v1/buyers", ListOptions: client.ListOptions{PerPage: 1}})
		if e := e2etest.Must(t, refused, err).Items; len(e) != 1 || e[0].Outcome != client.AuditRefused || e[0].Status != 403 ||
			e[0].Detail != client.CodeForbidden || !strings.HasPrefix(e[0].Actor.Name, roKey[:12]) {
			t.Errorf("the read-only key's attempt: %+v", e)
		}

		code, out, errOut := servetest.Run(t, dsn, "audit", "verify")
		if code != 0 || !strings.HasPrefix(out, "audit log intact: ") {
			t.Errorf("audit verify beside the service = %d %q %s", code, out, errOut)
		}
	})
}

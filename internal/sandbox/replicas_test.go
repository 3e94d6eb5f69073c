package sandbox_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/sandbox"
)

// TestRestart: a new Server on the same database (after the first is gone)
// knows the tokens, submissions and documents, and reveals verdicts on time.
func TestRestart(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		delay := func(o *sandbox.Options) { o.Delay = time.Minute }
		_, first := e.server(delay)
		c := login(t, first.URL, "erp-1", "")
		res := c.submit(invoice(invoiceOpts{code: "RS-1", issued: e.clock.Now()}))
		first.Close()

		_, second := e.server(delay)
		c.base = second.URL
		if got := c.status(res.Accepted[0].UUID); got != "Submitted" {
			t.Errorf("after restart: %s, want Submitted", got)
		}
		e.clock.Advance(time.Minute)
		r := c.do(http.MethodGet, "/api/v1.0/documentsubmissions/"+*res.SubmissionUID, nil)
		if r.Status != http.StatusOK || r.JSON(t)["overallStatus"] != "valid" {
			t.Errorf("submission after restart: %d %s", r.Status, r.Body)
		}
		if r := c.state(res.Accepted[0].UUID, "cancelled", "restart test"); r.Status != http.StatusOK {
			t.Errorf("cancel after restart: %d %s", r.Status, r.Body)
		}
	})
}

// TestReplicas: two Servers on two pools of one database share tokens,
// documents, duplicate detection and statistics.
func TestReplicas(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, e *env) {
		sa, a := e.server()
		_, b := e.server()
		ca := login(t, a.URL, "erp-1", "")
		cb := &client{t: t, base: b.URL, token: ca.token, hc: ca.hc} // the same token on the other replica
		now := e.clock.Now()
		body := envelope(invoice(invoiceOpts{code: "RP-1", issued: now}))
		r := ca.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body)
		if r.Status != http.StatusAccepted {
			t.Fatalf("submit on a: %d %s", r.Status, r.Body)
		}
		id := r.JSON(t)["acceptedDocuments"].([]any)[0].(map[string]any)["uuid"].(string)
		if got := cb.status(id); got != "Valid" {
			t.Errorf("status on b: %s", got)
		}
		if r := cb.do(http.MethodPost, "/api/v1.0/documentsubmissions/", body); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("same payload on b: %d, want 422", r.Status)
		}
		// The same document in another payload on b is a DS302 duplicate.
		res := cb.submit(invoice(invoiceOpts{code: "RP-1", issued: now}), invoice(invoiceOpts{code: "RP-2", issued: now}))
		if got := cb.failedSteps(res.Accepted[0].UUID); !slices.Equal(got, []string{"Step03-Duplicated Submission Validator/DS302"}) {
			t.Errorf("duplicate on b: %v", got)
		}
		// Concurrent submissions of one document on both replicas: exactly one Valid.
		d := invoice(invoiceOpts{code: "RP-3", issued: now})
		var wg sync.WaitGroup
		answers := make([]response, 2)
		errs := make([]error, 2)
		for i, c := range []*client{ca, cb} {
			wg.Go(func() {
				body := envelope(d, invoice(invoiceOpts{code: "RP-X" + string(rune('0'+i)), issued: now}))
				answers[i], errs[i] = c.try(http.MethodPost, "/api/v1.0/documentsubmissions/", body)
			})
		}
		wg.Wait()
		ids := make([]string, 2)
		for i, r := range answers {
			if errs[i] != nil || r.Status != http.StatusAccepted {
				t.Fatalf("concurrent submit %d: %v %d %s", i, errs[i], r.Status, r.Body)
			}
			ids[i] = r.JSON(t)["acceptedDocuments"].([]any)[0].(map[string]any)["uuid"].(string)
		}
		statuses := []string{ca.status(ids[0]), ca.status(ids[1])}
		slices.Sort(statuses)
		if !slices.Equal(statuses, []string{"Invalid", "Valid"}) {
			t.Errorf("concurrent copies: %v, want one Valid and one Invalid", statuses)
		}
		st, err := sa.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Submissions != 4 || st.Documents != 7 || st.ByCodeNumber[supplierTIN+"/RP-1"] != 2 || st.ByCodeNumber[supplierTIN+"/RP-3"] != 2 {
			t.Errorf("stats = %+v", st)
		}
	})
}

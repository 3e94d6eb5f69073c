package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Flow is the outcome of -flow: documents taken end to end, from create to
// Valid at the authority (the built-in sandbox, or any other).
type Flow struct {
	Documents int `json:"documents"`
	// Phase durations in seconds, and the whole.
	CreateS   float64 `json:"create_s"`
	ValidateS float64 `json:"validate_s"`
	SubmitS   float64 `json:"submit_s"`
	ValidS    float64 `json:"valid_s"`
	TotalS    float64 `json:"total_s"`
	// Submissions is how many submissions the bulk submits made.
	Submissions int `json:"submissions"`
	// NotValidated is how many validations answered without
	// validation_passed (each is also one of Errors); such documents
	// cannot become Valid.
	NotValidated int      `json:"not_validated"`
	Errors       int      `json:"errors"`
	ErrorSamples []string `json:"error_samples,omitempty"`
}

// bulkSize is the most ids one bulk submit takes.
const bulkSize = 100

// runFlow creates n invoices (c workers), validates each (c workers),
// bulk-submits them 100 at a time (c workers), and waits until the
// authority has found every one Valid; each phase starts when the previous
// one is done.
func (b *bench) runFlow(n int, timeout time.Duration) (Flow, error) {
	f := Flow{Documents: n}
	if err := ensureBuyers(b); err != nil {
		return f, err
	}
	errs := &errorLog{limit: 5}
	key := b.keys[0]
	start := time.Now()

	// Create.
	ids := make([]string, 0, n)
	var mu sync.Mutex
	b.drive(scenario{name: "flow-create", request: func(b *bench, i int64) (*http.Request, error) {
		return b.newRequest(http.MethodPost, "/api/v1/invoices", key, invoiceBody(b.inv.buyers[0], b.nextSerial()))
	}}, int64(n), time.Time{}, errs, func(_ *http.Request, body []byte) {
		var doc struct {
			Data struct{ ID string } `json:"data"`
		}
		if json.Unmarshal(body, &doc) == nil && doc.Data.ID != "" {
			mu.Lock()
			ids = append(ids, doc.Data.ID)
			mu.Unlock()
		}
	})
	f.CreateS = time.Since(start).Seconds()

	// Validate.
	t := time.Now()
	b.drive(scenario{name: "flow-validate", request: func(b *bench, i int64) (*http.Request, error) {
		return b.newRequest(http.MethodPost, "/api/v1/documents/"+ids[i]+"/validate", key, "")
	}}, int64(len(ids)), time.Time{}, errs, func(_ *http.Request, body []byte) {
		if !strings.Contains(string(body), `"validation_passed":true`) {
			mu.Lock()
			f.NotValidated++
			mu.Unlock()
			errs.add(fmt.Sprintf("validate: %.300s", body))
		}
	})
	f.ValidateS = time.Since(t).Seconds()

	// Bulk submit, 100 ids a request.
	t = time.Now()
	var batches []string
	for i := 0; i < len(ids); i += bulkSize {
		raw, _ := json.Marshal(map[string][]string{"document_ids": ids[i:min(i+bulkSize, len(ids))]})
		batches = append(batches, string(raw))
	}
	b.drive(scenario{name: "flow-submit", request: func(b *bench, i int64) (*http.Request, error) {
		return b.newRequest(http.MethodPost, "/api/v1/documents/submit-bulk", key, batches[i])
	}}, int64(len(batches)), time.Time{}, errs, func(_ *http.Request, body []byte) {
		var res struct {
			Data struct {
				UIDs     []string `json:"submission_uids"`
				Rejected []any    `json:"rejected"`
			} `json:"data"`
		}
		if json.Unmarshal(body, &res) == nil {
			mu.Lock()
			f.Submissions += len(res.Data.UIDs)
			mu.Unlock()
			for _, r := range res.Data.Rejected {
				errs.add(fmt.Sprintf("bulk submit rejected: %v", r))
			}
		}
	})
	f.SubmitS = time.Since(t).Seconds()

	// Wait for Valid: the run's serial numbers share a prefix, so one
	// search counts them.
	t = time.Now()
	deadline := t.Add(timeout)
	for {
		meta, err := b.getList("/api/v1/invoices?status=Valid&per_page=1&search="+b.inv.prefix, key)
		if err != nil {
			return f, err
		}
		if meta.Meta.Total >= len(ids) {
			break
		}
		if time.Now().After(deadline) {
			errs.add(fmt.Sprintf("only %d of %d documents Valid after %s", meta.Meta.Total, len(ids), timeout))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	f.ValidS = time.Since(t).Seconds()
	f.TotalS = time.Since(start).Seconds()
	f.Errors, f.ErrorSamples = errs.count, errs.samples
	return f, nil
}

// printFlow writes the flow's figures.
func printFlow(w io.Writer, f Flow) {
	fmt.Fprintf(w, "flow: %d documents created, validated, bulk-submitted (%d submissions) and Valid in %.1f s\n",
		f.Documents, f.Submissions, f.TotalS)
	fmt.Fprintf(w, "  create %.1f s, validate %.1f s, submit %.1f s, wait for Valid %.1f s; %d errors (%d failed validation)\n",
		f.CreateS, f.ValidateS, f.SubmitS, f.ValidS, f.Errors, f.NotValidated)
}

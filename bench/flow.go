package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/einvoice/einvoice/client"
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
	start := time.Now()

	// Create.
	ids := make([]string, 0, n)
	var mu sync.Mutex
	b.drive(scenario{name: "flow-create", call: func(ctx context.Context, b *bench, i int64) error {
		var doc createdInvoice
		if err := b.createInvoice(ctx, 0, &doc); err != nil {
			return err
		}
		if doc.ID != "" {
			mu.Lock()
			ids = append(ids, doc.ID)
			mu.Unlock()
		}
		return nil
	}}, int64(n), time.Time{}, errs)
	f.CreateS = time.Since(start).Seconds()

	// Validate.
	t := time.Now()
	b.drive(scenario{name: "flow-validate", call: func(ctx context.Context, b *bench, i int64) error {
		res, err := b.api(0).Documents.Validate(ctx, ids[i])
		if err != nil {
			return err
		}
		if !res.ValidationPassed {
			mu.Lock()
			f.NotValidated++
			mu.Unlock()
			return fmt.Errorf("validation did not pass: %s %v", res.Message, res.Errors)
		}
		return nil
	}}, int64(len(ids)), time.Time{}, errs)
	f.ValidateS = time.Since(t).Seconds()

	// Bulk submit, 100 ids a request.
	t = time.Now()
	var batches [][]string
	for i := 0; i < len(ids); i += bulkSize {
		batches = append(batches, ids[i:min(i+bulkSize, len(ids))])
	}
	b.drive(scenario{name: "flow-submit", call: func(ctx context.Context, b *bench, i int64) error {
		res, err := b.api(0).Documents.SubmitBulk(ctx, batches[i])
		if err != nil {
			return err
		}
		mu.Lock()
		f.Submissions += len(res.SubmissionUIDs)
		mu.Unlock()
		for _, r := range res.Rejected {
			errs.add(fmt.Sprintf("bulk submit rejected: %s %s %s", r.ID, r.ErrorCode, r.Message))
		}
		return nil
	}}, int64(len(batches)), time.Time{}, errs)
	f.SubmitS = time.Since(t).Seconds()

	// Wait for Valid: the run's serial numbers share a prefix, so one
	// search counts them.
	t = time.Now()
	deadline := t.Add(timeout)
	for {
		page, err := b.api(0).Documents.List(context.Background(), &client.DocumentListOptions{Status: client.StatusValid,
			Search: b.inv.prefix, ListOptions: client.ListOptions{PerPage: 1}})
		if err != nil {
			return f, fmt.Errorf("counting the Valid documents: %s", describe(err))
		}
		if page.Meta.Total >= len(ids) {
			break
		}
		if time.Now().After(deadline) {
			errs.add(fmt.Sprintf("only %d of %d documents Valid after %s", page.Meta.Total, len(ids), timeout))
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

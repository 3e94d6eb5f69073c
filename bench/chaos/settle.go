package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/einvoice/einvoice/client"
)

// settledCounts asks the service (any replica that answers) how many of
// its documents are Valid and how many Invalid: two list totals, which ask
// the authority nothing.
func settledCounts(ctx context.Context, c *apiClient) (valid, invalid int, err error) {
	var errs []error
	for _, base := range c.api.bases {
		var totals [2]int
		for k, status := range []string{"Valid", "Invalid"} {
			// Do, not Documents.List: only the meta is read (Do decodes it
			// when given somewhere to put the data), and an answer without
			// it is an error.
			var data json.RawMessage
			resp, e := c.at(base).Do(ctx, &client.Request{Method: http.MethodGet, Path: "/api/v1/invoices",
				Query: url.Values{"per_page": {"1"}, "status": {status}}}, &data)
			if e == nil && (resp.StatusCode != 200 || resp.Meta == nil) {
				e = fmt.Errorf("HTTP %d %.200s", resp.StatusCode, resp.Body)
			}
			if e != nil {
				errs = append(errs, e)
				totals[0] = -1
				break
			}
			totals[k] = resp.Meta.Total
		}
		if totals[0] >= 0 {
			return totals[0], totals[1], nil
		}
	}
	return 0, 0, fmt.Errorf("list the settled documents: %w", errors.Join(errs...))
}

// settlement is how the documents settled after the chaos.
type settlement struct {
	// Took is the time from the end of the chaos to the moment every
	// document was Valid or Invalid; the whole wait when they never were.
	Took    time.Duration
	Settled bool
	Valid   int
	Invalid int
}

// waitSettled polls the service every half second until all n documents
// are Valid or Invalid, or deadline passes.
func waitSettled(ctx context.Context, a *api, n int, deadline time.Duration) settlement {
	c := a.newClient()
	start := time.Now()
	var s settlement
	for {
		v, inv, err := settledCounts(ctx, c)
		if err == nil {
			s.Valid, s.Invalid = v, inv
			if v+inv >= n {
				s.Took, s.Settled = time.Since(start), true
				return s
			}
		}
		if time.Since(start) > deadline || ctx.Err() != nil {
			s.Took = time.Since(start)
			return s
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// serviceDoc is a document as the service holds it.
type serviceDoc struct {
	ID        string `json:"id"`
	Serial    string `json:"invoiceSerialNumber"`
	Status    string `json:"status"`
	Authority *struct {
		DocumentUUID string `json:"documentUuid"`
	} `json:"authority"`
	// Job describes the submission job of a document that has not settled
	// (see noteJobs).
	Job string `json:"-"`
}

// jobNote describes the submission job of a document that has not
// settled, from GET /documents/{id}/status: ", job submit pending, 7
// attempts, next in 1m3s, last error: ...".
func jobNote(ctx context.Context, a *api, id string) string {
	st, err := a.newClient().any().Documents.Status(ctx, id)
	if err != nil || st.Job == nil {
		return ""
	}
	j := st.Job
	return fmt.Sprintf(" (job %s %s, %d attempts, next in %s, last error: %.200s)", j.Kind, j.State, j.Attempts,
		time.Until(j.NextAttemptAt).Round(time.Second), j.LastError)
}

// noteJobs adds the job's note to the first few documents that have not
// settled (those the report shows).
func noteJobs(ctx context.Context, a *api, service map[string]serviceDoc) {
	var unsettled []string
	for serial, d := range service {
		if d.Status != "Valid" && d.Status != "Invalid" {
			unsettled = append(unsettled, serial)
		}
	}
	sort.Strings(unsettled)
	for _, serial := range unsettled[:min(maxExamples, len(unsettled))] {
		d := service[serial]
		d.Job = jobNote(ctx, a, d.ID)
		service[serial] = d
	}
}

// uuid is the authority's uuid the service recorded, if any.
func (d serviceDoc) uuid() string {
	if d.Authority == nil {
		return ""
	}
	return d.Authority.DocumentUUID
}

// serviceDocs lists every document of the tenant, 100 a page, by serial.
func serviceDocs(ctx context.Context, a *api) (map[string]serviceDoc, error) {
	c := a.newClient()
	out := map[string]serviceDoc{}
	for page := 1; ; page++ {
		// Do into serviceDoc: the fields the verdict compares, and an
		// answer without its meta is an error.
		var docs []serviceDoc
		resp, err := c.any().Do(ctx, &client.Request{Method: http.MethodGet, Path: "/api/v1/invoices",
			Query: url.Values{"per_page": {"100"}, "page": {strconv.Itoa(page)}}}, &docs)
		var e *client.Error
		switch {
		case errors.As(err, &e):
			return nil, fmt.Errorf("list documents, page %d: HTTP %d %.300s", page, e.StatusCode, e.Body)
		case err != nil && resp != nil: // an answer, not our envelope
			return nil, fmt.Errorf("list documents, page %d: HTTP %d %.300s", page, resp.StatusCode, resp.Body)
		case err != nil:
			return nil, fmt.Errorf("list documents, page %d: %w", page, err)
		case resp.StatusCode != 200 || resp.Meta == nil:
			return nil, fmt.Errorf("list documents, page %d: HTTP %d %.300s", page, resp.StatusCode, resp.Body)
		}
		for _, d := range docs {
			out[d.Serial] = d
		}
		if len(docs) < 100 || len(out) >= resp.Meta.Total {
			return out, nil
		}
	}
}

package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testOutbox: the submission lifecycle's writes are conditional (status,
// version, lease), and claimers running at once each get different jobs.
func testOutbox(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "Outbox")
	now := time.Now().UTC().Truncate(time.Microsecond)
	buyer := party(tn.ID, einvoice.KindBuyer, "Buyer", now)
	if err := s.CreateParty(ctx, buyer); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var docs []*einvoice.Document
	for i := range n {
		d := document(tn.ID, buyer.ID, fmt.Sprintf("OUT-%02d", i), now)
		d.Status = einvoice.StatusReady
		if err := s.CreateDocument(ctx, d, event(einvoice.StatusReady, now)); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}

	// Record the intent: only from ready, only at the version read.
	record := func(d *einvoice.Document, version time.Time, owner string) error {
		cp := *d
		cp.Status, cp.UpdatedAt = einvoice.StatusSubmitting, now.Add(time.Second)
		job := &einvoice.Job{ID: newID(), TenantID: tn.ID, DocumentID: d.ID, Kind: einvoice.JobSubmit, State: einvoice.JobPending,
			NextAttemptAt: now, LeaseOwner: owner, LeaseUntil: now.Add(time.Minute), CreatedAt: now, UpdatedAt: now}
		ev := event(einvoice.StatusSubmitting, now.Add(time.Second))
		return s.WriteSubmission(ctx, einvoice.SubmissionWrite{Doc: &cp, From: []einvoice.Status{einvoice.StatusReady}, Version: version,
			UBL: []byte(`{"Invoice":[{}]}`), Jobs: []*einvoice.Job{job}, Event: &ev})
	}
	if err := record(docs[0], now.Add(-time.Hour), "r1"); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("record at a stale version: %v, want ErrWrongState", err)
	}
	for _, d := range docs {
		if err := record(d, now, "r1"); err != nil {
			t.Fatalf("record: %v", err)
		}
	}
	if err := record(docs[0], now, "r2"); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("second record of a submitting document: %v, want ErrWrongState", err)
	}
	if body, err := s.GetUBL(ctx, tn.ID, docs[0].ID); err != nil || string(body) != `{"Invoice":[{}]}` {
		t.Errorf("GetUBL = %q, %v", body, err)
	}

	// Leased by the request: nobody may claim them yet.
	if jobs, err := s.ClaimJobs(ctx, "w0", now, now.Add(time.Minute), 100); err != nil || len(jobs) != 0 {
		t.Errorf("claim while leased: %d jobs, %v; want none", len(jobs), err)
	}
	// A write under another owner's lease is refused.
	j, err := s.GetJob(ctx, tn.ID, docs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	j.Attempts = 9
	if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: "someone else"}); !errors.Is(err, einvoice.ErrWrongState) {
		t.Errorf("write without the lease: %v, want ErrWrongState", err)
	}

	// After the lease, four claimers at once share the jobs out: each job
	// to exactly one.
	later := now.Add(2 * time.Minute)
	var mu sync.Mutex
	got := map[string]string{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			owner := fmt.Sprintf("w%d", w+1)
			for {
				jobs, err := s.ClaimJobs(ctx, owner, later, later.Add(time.Minute), 7)
				if err != nil {
					t.Errorf("claim: %v", err)
					return
				}
				if len(jobs) == 0 {
					return
				}
				mu.Lock()
				for _, j := range jobs {
					if prev, dup := got[j.DocumentID]; dup {
						t.Errorf("job of %s claimed by %s and %s", j.DocumentID, prev, owner)
					}
					got[j.DocumentID] = owner
					if j.LeaseOwner != owner {
						t.Errorf("claimed job leased to %q, want %q", j.LeaseOwner, owner)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(got) != n {
		t.Errorf("claimed %d jobs, want %d", len(got), n)
	}

	// The owner's writes go through; a done job is never claimed again.
	j, _ = s.GetJob(ctx, tn.ID, docs[1].ID)
	j.State = einvoice.JobDone
	if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: got[docs[1].ID]}); err != nil {
		t.Errorf("owner's write: %v", err)
	}
	if jobs, _ := s.ClaimJobs(ctx, "w9", later.Add(time.Hour), later.Add(2*time.Hour), 100); len(jobs) != n-1 {
		t.Errorf("after the leases: claimed %d, want %d (the done job stays)", len(jobs), n-1)
	}

	// Poll jobs of one submission are claimed together, due or not, except
	// those another worker holds.
	at := later.Add(3 * time.Hour)
	for i, d := range docs[2:12] {
		j, _ := s.GetJob(ctx, tn.ID, d.ID)
		j.Kind, j.SubmissionUID, j.NextAttemptAt, j.LeaseUntil = einvoice.JobPoll, "SUB-1", at.Add(time.Duration(i)*time.Minute), at
		if i == 0 {
			j.LeaseUntil = at.Add(time.Hour) // held by another worker
		}
		if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}, Lease: "w9"}); err != nil {
			t.Fatal(err)
		}
	}
	polls, err := s.ClaimSubmissionPolls(ctx, tn.ID, "SUB-1", "p1", at, at.Add(time.Minute))
	if err != nil || len(polls) != 9 {
		t.Errorf("ClaimSubmissionPolls: %d jobs, %v; want the 9 not held", len(polls), err)
	}
	if again, _ := s.ClaimSubmissionPolls(ctx, tn.ID, "SUB-1", "p2", at, at.Add(time.Minute)); len(again) != 0 {
		t.Errorf("claimed again while leased: %d", len(again))
	}
}

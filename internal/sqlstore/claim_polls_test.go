package sqlstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testClaimPolls: ClaimPolls leases only due, unleased poll jobs, each to
// one claimer; ClaimJobs still takes both kinds.
func testClaimPolls(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	tn := mustCreateTenant(t, s, "A")
	now := time.Now().UTC().Truncate(time.Microsecond)
	var polls, submits []string
	for i := range 6 {
		d := document(tn.ID, "", fmt.Sprintf("CP-%d", i), now)
		d.Status = einvoice.StatusReady
		if err := s.CreateDocument(ctx, d, event(einvoice.StatusReady, now)); err != nil {
			t.Fatal(err)
		}
		cp := *d
		cp.Status, cp.UpdatedAt = einvoice.StatusSubmitting, now
		job := &einvoice.Job{ID: newID(), TenantID: tn.ID, DocumentID: d.ID, Kind: einvoice.JobSubmit, State: einvoice.JobPending,
			NextAttemptAt: now.Add(-time.Second), CreatedAt: now, UpdatedAt: now}
		if i%2 == 0 {
			job.Kind, job.SubmissionUID = einvoice.JobPoll, "SUB-1"
			polls = append(polls, d.ID)
		} else {
			submits = append(submits, d.ID)
		}
		if i == 4 { // not yet due
			job.NextAttemptAt = now.Add(time.Hour)
			polls = polls[:len(polls)-1]
		}
		if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Doc: &cp, From: []einvoice.Status{einvoice.StatusReady}, Version: now,
			UBL: []byte(`{}`), Jobs: []*einvoice.Job{job}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ClaimPolls(ctx, "p1", now, now.Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range got {
		if j.Kind != einvoice.JobPoll || j.LeaseOwner != "p1" {
			t.Errorf("claimed %s job leased to %q, want poll jobs leased to p1", j.Kind, j.LeaseOwner)
		}
		ids = append(ids, j.DocumentID)
	}
	if len(ids) != len(polls) {
		t.Errorf("ClaimPolls took %v, want the due polls %v", ids, polls)
	}
	if again, _ := s.ClaimPolls(ctx, "p2", now, now.Add(time.Minute), 100); len(again) != 0 {
		t.Errorf("a second claimer took %d leased polls, want none", len(again))
	}
	rest, err := s.ClaimJobs(ctx, "w1", now, now.Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != len(submits) {
		t.Errorf("ClaimJobs took %d jobs after the polls, want the %d submit jobs", len(rest), len(submits))
	}
}

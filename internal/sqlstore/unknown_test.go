package sqlstore_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// testUnknownOutcomes: submit jobs whose outcome is unknown (maybe sent) are
// ClaimUnknown's, never ClaimJobs': all of one tenant at once, due or not,
// the tenant due longest first, except those another worker holds and those
// whose SettleAfter has not come (a call the authority may still be taking
// in).
func testUnknownOutcomes(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	now := time.Now().UTC().Truncate(time.Microsecond)
	type spec struct {
		maybeSent bool
		due       time.Duration // next attempt, from now
		leased    bool
		owner     string // of the lease ("r0" when empty)
		recent    bool   // settled no sooner than 10 s from now
	}

	jobsOf := func(name string, specs ...spec) []string {
		tn := mustCreateTenant(t, s, name)
		buyer := party(tn.ID, einvoice.KindBuyer, "Buyer", now)
		if err := s.CreateParty(ctx, buyer); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i, sp := range specs {
			d := document(tn.ID, buyer.ID, fmt.Sprintf("%s-%02d", name, i), now)
			d.Status = einvoice.StatusSubmitting
			if err := s.CreateDocument(ctx, d, event(einvoice.StatusSubmitting, now)); err != nil {
				t.Fatal(err)
			}
			lease := now.Add(-time.Second)
			if sp.leased {
				lease = now.Add(time.Minute)
			}
			j := &einvoice.Job{ID: newID(), TenantID: tn.ID, DocumentID: d.ID, Kind: einvoice.JobSubmit, State: einvoice.JobPending,
				MaybeSent: sp.maybeSent, Attempts: 1, NextAttemptAt: now.Add(sp.due), LeaseOwner: cmp.Or(sp.owner, "r0"), LeaseUntil: lease,
				CreatedAt: now.Add(time.Duration(i) * time.Second), UpdatedAt: now}
			if sp.recent {
				j.SettleAfter = now.Add(10 * time.Second)
			}
			if err := s.WriteSubmission(ctx, einvoice.SubmissionWrite{Jobs: []*einvoice.Job{j}}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, d.ID)
		}
		return ids
	}
	// Tenant A: three unknown (one due, two not yet), one held by another
	// worker (a request sending it, not a sweep), one fresh submit job due,
	// one unknown not to be settled for 10 s. Tenant B: one unknown, due
	// earlier than A's. Tenant C: an unknown outcome not due. Tenant E: an
	// unknown outcome due half an hour ago, not to be settled for 10 s.
	a := jobsOf("A", spec{true, -time.Second, false, "", false}, spec{true, time.Hour, false, "", false}, spec{true, time.Minute, false, "", false},
		spec{true, -time.Hour, true, "", false}, spec{false, -time.Second, false, "", false}, spec{true, -time.Second, false, "", true})
	b := jobsOf("B", spec{true, -time.Minute, false, "", false})
	jobsOf("C", spec{true, time.Hour, false, "", false})
	e := jobsOf("E", spec{true, -30 * time.Minute, false, "", true})
	// Tenant D: an unknown outcome due longest of all, but another of D's
	// is held by a sweep (another replica's): D is that sweep's.
	jobsOf("D", spec{true, -2 * time.Hour, false, "", false}, spec{true, -time.Hour, true, einvoice.SweepOwnerPrefix + "other", false})

	ids := func(jobs []*einvoice.Job) []string {
		var out []string
		for _, j := range jobs {
			out = append(out, j.DocumentID)
		}
		return out
	}
	fresh, err := s.ClaimJobs(ctx, "w1", now, now.Add(time.Minute), 100)
	if err != nil || !slices.Equal(ids(fresh), a[4:5]) {
		t.Errorf("ClaimJobs: %v, %v; want A's fresh job alone", ids(fresh), err)
	}
	first, err := s.ClaimUnknown(ctx, "u1", now, now.Add(time.Minute), 100)
	if err != nil || !slices.Equal(ids(first), b) {
		t.Errorf("first ClaimUnknown: %v, %v; want B's (due longest)", ids(first), err)
	}
	second, err := s.ClaimUnknown(ctx, "u2", now, now.Add(time.Minute), 100)
	if err != nil || !slices.Equal(ids(second), a[:3]) {
		t.Errorf("second ClaimUnknown: %v, %v; want A's three not held and past their SettleAfter, due or not, oldest first", ids(second), err)
	}
	for _, j := range second {
		if j.LeaseOwner != "u2" || !j.LeaseUntil.Equal(now.Add(time.Minute)) || !j.MaybeSent {
			t.Errorf("claimed %+v, want leased to u2 for a minute", j)
		}
	}
	if third, err := s.ClaimUnknown(ctx, "u3", now, now.Add(time.Minute), 100); err != nil || len(third) != 0 {
		t.Errorf("third ClaimUnknown: %v, %v; want none (C's is not due, E's and A's last not to be settled yet)", ids(third), err)
	}
	// Once their SettleAfter has passed, they are claimed.
	soon := now.Add(11 * time.Second)
	if settled, err := s.ClaimUnknown(ctx, "u5", soon, soon.Add(time.Minute), 100); err != nil || !slices.Equal(ids(settled), e) {
		t.Errorf("ClaimUnknown after SettleAfter: %v, %v; want E's (due longer than A's last)", ids(settled), err)
	}
	// Once the leases end, the limit holds.
	later := now.Add(2 * time.Hour)
	if some, err := s.ClaimUnknown(ctx, "u4", later, later.Add(time.Minute), 2); err != nil || len(some) != 2 {
		t.Errorf("ClaimUnknown with a limit of 2: %v, %v", ids(some), err)
	}
}

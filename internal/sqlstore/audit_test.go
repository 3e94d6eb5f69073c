package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/sqlstore"
)

func auditEntry(tenantID, actorID, action, resID string, at time.Time) *einvoice.AuditEntry {
	return &einvoice.AuditEntry{At: at, TenantID: tenantID, ActorKind: einvoice.ActorKey, ActorID: actorID, ActorName: "ci key",
		Address: "192.0.2.1", UserAgent: "test/1", Action: action, ResourceType: "document", ResourceID: resID,
		Outcome: einvoice.AuditOK, Status: 201}
}

// verifyAudit checks the whole chain as einvoice audit verify does and
// returns the number of entries.
func verifyAudit(t *testing.T, s einvoice.AuditStore) int64 {
	t.Helper()
	ctx := context.Background()
	seq, hash, err := s.AuditHead(ctx)
	if err != nil {
		t.Fatalf("AuditHead: %v", err)
	}
	var c einvoice.AuditChecker
	err = s.WalkAudit(ctx, seq, func(e *einvoice.AuditEntry) error {
		if b := c.Check(e); b != nil {
			return b
		}
		return nil
	})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if b := c.Finish(seq, hash); b != nil {
		t.Fatalf("verify: %v", b)
	}
	return c.Count
}

func testAudit(t *testing.T, dsn string) {
	ctx := context.Background()
	s := open(t, dsn)
	if seq, hash, err := s.AuditHead(ctx); err != nil || seq != 0 || hash != einvoice.GenesisAuditHash {
		t.Fatalf("empty head = %d %s %v", seq, hash, err)
	}
	a, b := newID(), newID()
	var all []*einvoice.AuditEntry
	for i := range 5 {
		all = append(all, auditEntry(a, "k1", "POST /api/v1/invoices", fmt.Sprintf("d%d", i), t0.Add(time.Duration(i)*time.Hour)))
	}
	all[3].ActorKind, all[3].ActorID, all[3].ActorEmail = einvoice.ActorUser, "u1", "ana@example.com"
	all[4].Action, all[4].ResourceID = "document.valid", "d1"
	all = append(all, auditEntry(b, "k2", "POST /api/v1/invoices", "x", t0))
	if err := s.AppendAudit(ctx, all[:2]...); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendAudit(ctx, all[2:]...); err != nil {
		t.Fatal(err)
	}
	for i, e := range all {
		if e.Seq != int64(i+1) || e.Hash != einvoice.AuditHash(e) {
			t.Errorf("entry %d: seq %d, hash %s", i, e.Seq, e.Hash)
		}
	}
	if n := verifyAudit(t, s); n != 6 {
		t.Errorf("verified %d entries, want 6", n)
	}
	page, err := s.ListAudit(ctx, a, einvoice.AuditFilter{PageRequest: einvoice.PageRequest{Page: 1, PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 5 || len(page.Items) != 2 || page.Items[0].Seq != 5 {
		t.Fatalf("first page: total %d, %d items", page.Total, len(page.Items))
	}
	if diff := cmp.Diff(all[4], page.Items[0]); diff != "" {
		t.Errorf("entry read back (-want +got):\n%s", diff)
	}
	seqs := func(f einvoice.AuditFilter) []int64 {
		t.Helper()
		f.PageRequest = einvoice.PageRequest{Page: 1, PerPage: 10}
		p, err := s.ListAudit(ctx, a, f)
		if err != nil {
			t.Fatalf("ListAudit(%+v): %v", f, err)
		}
		out := []int64{}
		for _, e := range p.Items {
			out = append(out, e.Seq)
		}
		if p.Total != len(out) {
			t.Errorf("ListAudit(%+v): total %d, %d items", f, p.Total, len(out))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		f    einvoice.AuditFilter
		want []int64
	}{
		{"all", einvoice.AuditFilter{}, []int64{5, 4, 3, 2, 1}},
		{"actor id", einvoice.AuditFilter{Actor: "u1"}, []int64{4}},
		{"actor e-mail", einvoice.AuditFilter{Actor: "Ana@Example.com"}, []int64{4}},
		{"actor kind", einvoice.AuditFilter{Actor: "key"}, []int64{5, 3, 2, 1}},
		{"action", einvoice.AuditFilter{Action: "document.valid"}, []int64{5}},
		{"resource type", einvoice.AuditFilter{ResourceType: "document"}, []int64{5, 4, 3, 2, 1}},
		{"resource", einvoice.AuditFilter{ResourceType: "document", ResourceID: "d1"}, []int64{5, 2}},
		{"period", einvoice.AuditFilter{From: t0.Add(time.Hour), To: t0.Add(3 * time.Hour)}, []int64{3, 2}},
		{"before", einvoice.AuditFilter{Before: 3}, []int64{2, 1}},
		{"after", einvoice.AuditFilter{After: 3}, []int64{4, 5}},
		{"between", einvoice.AuditFilter{Before: 5, After: 1}, []int64{4, 3, 2}},
		{"other tenant's", einvoice.AuditFilter{Actor: "k2"}, []int64{}},
	} {
		if got := seqs(tc.f); !cmp.Equal(got, tc.want) {
			t.Errorf("%s: seqs %v, want %v", tc.name, got, tc.want)
		}
	}
}

// testAuditReplicas appends from two stores on one database (two
// replicas) at once: one chain, seqs without gaps.
func testAuditReplicas(t *testing.T, dsn string) {
	ctx := context.Background()
	replicas := []*sqlstore.Store{open(t, dsn), open(t, dsn)}
	tenantID := newID()
	const writers, each = 4, 20
	var wg sync.WaitGroup
	for w := range writers {
		s := replicas[w%2]
		wg.Go(func() {
			for i := range each {
				batch := []*einvoice.AuditEntry{auditEntry(tenantID, fmt.Sprintf("k%d", w), "POST /x", fmt.Sprint(i), t0)}
				if i%5 == 0 { // a batch now and then, as the writer appends
					batch = append(batch, auditEntry(tenantID, fmt.Sprintf("k%d", w), "POST /y", fmt.Sprint(i), t0))
				}
				if err := s.AppendAudit(ctx, batch...); err != nil {
					t.Errorf("AppendAudit: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	want := int64(writers * (each + each/5))
	if n := verifyAudit(t, replicas[1]); n != want {
		t.Errorf("verified %d entries, want %d", n, want)
	}
}

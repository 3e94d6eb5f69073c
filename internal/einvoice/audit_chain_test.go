package einvoice_test

import (
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// chain returns n entries chained as a store appends them.
func chain(n int) []*einvoice.AuditEntry {
	var out []*einvoice.AuditEntry
	seq, hash := int64(0), einvoice.GenesisAuditHash
	for i := range n {
		e := &einvoice.AuditEntry{At: time.Date(2026, 11, 22, 8, 0, i, 123456000, time.UTC), TenantID: "t1",
			ActorKind: einvoice.ActorKey, ActorID: "k1", ActorName: "ci", Action: "POST /api/v1/invoices",
			ResourceType: "document", ResourceID: "d" + string(rune('a'+i)), Outcome: einvoice.AuditOK, Status: 201}
		e.Chain(seq, hash)
		seq, hash = e.Seq, e.Hash
		out = append(out, e)
	}
	return out
}

// check runs a checker over entries and the head of the intact chain.
func check(entries []*einvoice.AuditEntry, headSeq int64, headHash string) *einvoice.AuditBreak {
	var c einvoice.AuditChecker
	for _, e := range entries {
		if b := c.Check(e); b != nil {
			return b
		}
	}
	return c.Finish(headSeq, headHash)
}

func TestAuditChain(t *testing.T) {
	t.Parallel()
	intact := chain(5)
	head := intact[4]
	if b := check(intact, head.Seq, head.Hash); b != nil {
		t.Fatalf("intact chain: %v", b)
	}
	if b := check(nil, 0, einvoice.GenesisAuditHash); b != nil {
		t.Fatalf("empty chain: %v", b)
	}
	for _, tc := range []struct {
		name    string
		mutate  func([]*einvoice.AuditEntry) []*einvoice.AuditEntry
		seq     int64
		problem string
	}{
		{"altered field", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry {
			es[2].ActorName = "someone else"
			return es
		}, 3, "altered"},
		{"altered time", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry {
			es[1].At = es[1].At.Add(time.Microsecond)
			return es
		}, 2, "altered"},
		{"removed", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry {
			return append(es[:1], es[2:]...)
		}, 2, "missing"},
		{"removed last", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry { return es[:4] }, 5, "missing"},
		{"removed and renumbered", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry {
			es = append(es[:1], es[2:]...)
			for i, e := range es {
				e.Seq = int64(i + 1)
			}
			return es
		}, 2, "previous hash"},
		{"duplicated", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry {
			return append(es[:3], es[2:]...)
		}, 3, "duplicated"},
		{"reordered", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry {
			es[1].Seq, es[2].Seq = es[2].Seq, es[1].Seq
			es[1], es[2] = es[2], es[1]
			return es
		}, 2, "previous hash"},
		{"rehashed alone", func(es []*einvoice.AuditEntry) []*einvoice.AuditEntry {
			es[2].Detail = "covered up"
			es[2].Hash = einvoice.AuditHash(es[2])
			return es
		}, 4, "previous hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := check(tc.mutate(chain(5)), head.Seq, head.Hash)
			if b == nil {
				t.Fatal("not detected")
			}
			if b.Seq != tc.seq || !strings.Contains(b.Problem, tc.problem) {
				t.Errorf("got entry %d %q, want entry %d and %q", b.Seq, b.Problem, tc.seq, tc.problem)
			}
		})
	}
}

// TestAuditHashStable pins the canonical encoding: a change to it breaks
// every chain already written.
func TestAuditHashStable(t *testing.T) {
	t.Parallel()
	e := chain(1)[0]
	const want = "a4500734790ffc7d7e1fe7e421576f782d04383d1df1899437ed81a65b225228"
	if got := e.Hash; got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	if len(e.Hash) != 64 || e.PrevHash != einvoice.GenesisAuditHash || e.Seq != 1 {
		t.Errorf("first entry: seq %d prev %s hash %s", e.Seq, e.PrevHash, e.Hash)
	}
}

func TestAuditOutcomeOf(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]einvoice.AuditOutcome{200: einvoice.AuditOK, 303: einvoice.AuditOK,
		403: einvoice.AuditRefused, 422: einvoice.AuditRefused, 500: einvoice.AuditFailed} {
		if got := einvoice.AuditOutcomeOf(status); got != want {
			t.Errorf("AuditOutcomeOf(%d) = %s, want %s", status, got, want)
		}
	}
}

package received

import (
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"

	"github.com/einvoice/einvoice/client"
)

// TestReceivedFaults: the authority failing (500s on raw documents and
// notifications, a 429 with Retry-After on search, a dropped connection)
// while documents arrive: the poller backs off and comes back, and each
// document is received once.
func TestReceivedFaults(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		ctx := t.Context()
		svc := e2etest.StartService(t, dsn, append([]string{"--rate-limit", "100000", "--sandbox-delay", "0", "--sandbox-faults"}, e2etest.ReceivedArgs...)...)
		a, keyB, buyer := receivingPair(t, svc, dsn)
		b := svc.API(t, keyB)

		svc.Fault(t, map[string]any{"endpoint": "raw", "kind": "fail", "count": 3})
		svc.Fault(t, map[string]any{"endpoint": "notifications", "kind": "fail", "count": 2})
		svc.Fault(t, map[string]any{"endpoint": "search", "kind": "throttle", "count": 1, "retryAfter": 1})
		svc.Fault(t, map[string]any{"endpoint": "raw", "kind": "drop-before", "count": 1})
		want := map[string]bool{}
		for i := range 3 {
			id := e2etest.ReadyInvoiceDoc(t, a, fmt.Sprintf("INV-FAULT-%d", i), buyer.ID)
			sub, err := a.Documents.Submit(ctx, id)
			e2etest.Want200(t, e2etest.Must(t, sub, err))
			want[e2etest.WaitStatusTyped(t, a, id, client.StatusValid, 20*time.Second).DocumentUUID] = true
		}
		got := e2etest.WaitReceived(t, b, 90*time.Second, "B receives every document despite the faults", func(ds []client.ReceivedDocument) bool {
			n := 0
			for _, d := range ds {
				if want[d.UUID] {
					n++
				}
			}
			return n == len(want)
		})
		if len(got) != len(want) {
			t.Errorf("received %d documents, want each of %d once: %+v", len(got), len(want), got)
		}
		for _, d := range got {
			if !d.Parsed {
				t.Errorf("%s not parsed: %s", d.Number, d.ParseError)
			}
		}
	})
}

package received_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing/received"
)

// TestStandsAlone: the capability is made from its own options; without an
// authority its loop returns at once (nothing to poll), and the list
// refuses a bad filter before the store is asked.
func TestStandsAlone(t *testing.T) {
	svc := received.New(received.Options{})
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(context.Background()) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run without an authority did not return")
	}
	f := einvoice.ReceivedFilter{Status: "Submitted", Search: strings.Repeat("x", 201)}
	_, err := svc.ListReceived(context.Background(), "tenant", f)
	var e *einvoice.Error
	if !errors.As(err, &e) || len(e.Fields["status"]) != 1 || len(e.Fields["search"]) != 1 {
		t.Errorf("ListReceived(bad filter) = %v, want VALIDATION_FAILED naming status and search", err)
	}
	if v := received.ViewOf(&einvoice.ReceivedDocument{Status: einvoice.ReceivedValid}, time.Now()); v.Rejectable {
		t.Errorf("a document never validated is rejectable: %+v", v)
	}
}

package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// doc is one of the run's documents, as the clients know it.
type doc struct {
	id, serial string
	// acked: the service has answered a submit of it (it holds the intent).
	acked atomic.Bool
	// final: the service said it is submitted (200, 409): the clients stop.
	final atomic.Bool

	mu   sync.Mutex
	told []string // uuids the service told a client
}

// tell notes a uuid the service gave a client for the document.
func (d *doc) tell(uuid string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.told, uuid) {
		d.told = append(d.told, uuid)
	}
}

// toldUUIDs returns the uuids the service gave the clients.
func (d *doc) toldUUIDs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.told...)
}

// buyerBody is a buyer complete enough for the authority.
func buyerBody() map[string]any {
	return map[string]any{"name": "Hebat Group Sdn. Bhd.", "tin": "C2584563200", "id_type": "BRN", "id_value": "201901234567",
		"address": map[string]any{"line1": "Lot 66", "city": "Kuala Lumpur", "state": "14", "postCode": "50480", "countryCode": "MYS"},
		"contact": map[string]any{"phone": "+60123456789", "email": "ap@hebat.example"}}
}

// invoiceBody is a one-line invoice with autoCalculate.
func invoiceBody(buyerID, serial string) map[string]any {
	return map[string]any{"buyerId": buyerID, "invoiceSerialNumber": serial, "currencyCode": "MYR", "autoCalculate": true,
		"invoiceLines": []any{map[string]any{"classifications": []string{"001"}, "productDescription": "Chaos monkey", "quantity": 2,
			"unitCode": "H87", "unitPrice": 19.9, "invoiceLineTaxes": []any{map[string]any{"taxType": "01", "taxRate": 10}}}},
		"payment": map[string]any{"paymentMode": "01"}}
}

// createDocuments creates a buyer and n invoices (serials prefix-00001 and
// on) and validates each, with 4 workers; every one must end ready.
func createDocuments(ctx context.Context, a *api, n int, prefix string) ([]*doc, error) {
	c := a.newClient()
	var buyer struct {
		ID      string `json:"id"`
		IsReady bool   `json:"isReady"`
	}
	if err := c.must(ctx, "POST", "/api/v1/buyers", buyerBody(), 201, &buyer); err != nil {
		return nil, fmt.Errorf("create the buyer: %w", err)
	}
	if !buyer.IsReady {
		return nil, fmt.Errorf("the buyer %s is not ready", buyer.ID)
	}
	docs := make([]*doc, n)
	var next atomic.Int64
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			c := a.newClient()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				d := &doc{serial: fmt.Sprintf("%s-%05d", prefix, i+1)}
				var created struct {
					ID string `json:"id"`
				}
				if err := c.must(ctx, "POST", "/api/v1/invoices", invoiceBody(buyer.ID, d.serial), 201, &created); err != nil {
					errs <- err
					return
				}
				d.id = created.ID
				var v struct {
					Status string `json:"status"`
				}
				if err := c.must(ctx, "POST", "/api/v1/documents/"+d.id+"/validate", nil, 200, &v); err != nil || v.Status != "ready" {
					errs <- fmt.Errorf("validate %s: %v (status %q)", d.serial, err, v.Status)
					return
				}
				docs[i] = d
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return docs, ctx.Err()
}

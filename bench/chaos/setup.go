package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/einvoice/einvoice/client"
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

// buyer is a buyer complete enough for the authority.
func buyer() *client.Party {
	return &client.Party{Name: "Hebat Group Sdn. Bhd.", TIN: "C21638015020", IDType: client.IDTypeBRN, IDValue: "201901234567",
		Address: client.Address{Line1: "Lot 66", City: "Kuala Lumpur", State: "14", PostCode: "50480", CountryCode: "MYS"},
		Contact: client.Contact{Phone: "+60123456789", Email: "ap@hebat.example"}}
}

// invoice is a one-line invoice with autoCalculate.
func invoice(buyerID, serial string) *client.Document {
	return &client.Document{BuyerID: buyerID, InvoiceSerialNumber: serial, CurrencyCode: "MYR", AutoCalculate: true,
		Lines: []client.Line{{Classifications: []string{"001"}, ProductDescription: "Chaos monkey", Quantity: "2",
			UnitCode: "H87", UnitPrice: "19.9", Taxes: []client.LineTax{{TaxType: "01", TaxRate: "10"}}}},
		Payment: &client.Payment{PaymentMode: "01"}}
}

// createDocuments creates a buyer and n invoices (serials prefix-00001 and
// on) and validates each, with 4 workers; every one must end ready. Nothing
// is killed yet: each request goes to the next replica.
func createDocuments(ctx context.Context, a *api, n int, prefix string) ([]*doc, error) {
	b, err := a.newClient().any().Buyers.Create(ctx, buyer())
	if err != nil {
		return nil, fmt.Errorf("create the buyer: %w", err)
	}
	if !b.IsReady {
		return nil, fmt.Errorf("the buyer %s is not ready", b.ID)
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
				created, err := c.any().Documents.Create(ctx, invoice(b.ID, d.serial))
				if err != nil {
					errs <- fmt.Errorf("create %s: %w", d.serial, err)
					return
				}
				d.id = created.ID
				v, err := c.any().Documents.Validate(ctx, d.id)
				if err != nil || v.Status != client.StatusReady {
					var status client.Status
					if v != nil {
						status = v.Status
					}
					errs <- fmt.Errorf("validate %s: %v (status %q)", d.serial, err, status)
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

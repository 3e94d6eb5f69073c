package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/einvoice/einvoice/client"
)

// hebat is a buyer complete enough for the tax authority.
func hebat(name string) *client.Party {
	return &client.Party{
		Name: name, TIN: "C21638015020", IDType: client.IDTypeBRN, IDValue: "201901234567",
		SSTRegistrationNumber: "NA",
		Address: client.Address{Line1: "Lot 66, Bangunan Merdeka", City: "Kuala Lumpur", State: "14",
			PostCode: "50480", CountryCode: "MYS"},
		Contact: client.Contact{Phone: "+60123456789", Email: "ap@hebat.example"},
	}
}

// cable is a line of one USB-C cable at 9.42 with 6 % sales tax.
func cable() client.Line {
	return client.Line{Classifications: []string{"001"}, ProductDescription: "USB-C cable", Quantity: "1",
		UnitCode: "H87", UnitPrice: "9.42", Taxes: []client.LineTax{{TaxType: "01", TaxRate: "6"}}}
}

// An invoice from creation to its tax authority's verdict.
func Example() {
	ctx := context.Background()
	c := client.New(serverURL, apiKey)

	buyer, err := c.Buyers.Create(ctx, hebat("Hebat Group Sdn. Bhd."))
	if err != nil {
		log.Fatal(err)
	}
	doc, err := c.Documents.Create(ctx, &client.Document{
		Type: client.TypeInvoice, BuyerID: buyer.ID, InvoiceSerialNumber: "EX-2026-0001",
		CurrencyCode: "MYR", AutoCalculate: true,
		Lines:   []client.Line{cable(), cable()},
		Payment: &client.Payment{PaymentMode: "01"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Status, doc.TotalTaxAmount, doc.TotalPayableAmount)

	res, err := c.Documents.Validate(ctx, doc.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, res.Message)

	if _, err := c.Documents.Submit(ctx, doc.ID); err != nil {
		log.Fatal(err)
	}
	st, err := c.Documents.Status(ctx, doc.ID)
	for err == nil && (st.Status == client.StatusSubmitting || st.Status == client.StatusSubmitted) {
		time.Sleep(200 * time.Millisecond)
		st, err = c.Documents.Status(ctx, doc.ID)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Status, len(st.DocumentUUID))
	// Output:
	// draft 1.14 20.00
	// ready The document is valid and ready to submit.
	// Valid 26
}

// A request the service refuses is an *client.Error: its status, its code
// and the problems of each field at fault.
func ExampleError() {
	c := client.New(serverURL, apiKey)
	_, err := c.Documents.Create(context.Background(), &client.Document{
		InvoiceSerialNumber: "EX-2026-0002", CurrencyCode: "MYR",
		BuyerID: "0192d1a2-0000-7000-8000-000000000000",
		Lines: []client.Line{{ProductDescription: "Cable", Quantity: "-1", UnitPrice: "9.42", UnitCode: "H87",
			Classifications: []string{"001"}, Taxes: []client.LineTax{{TaxType: "01", TaxRate: "6"}}}},
	})
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.Code)
		fmt.Println(e.Field("invoiceLines.0.quantity"))
	}
	// Output:
	// 422 VALIDATION_FAILED
	// [must not be negative]
}

// All walks every page of a list.
func ExamplePartyService_All() {
	ctx := context.Background()
	c := client.New(serverURL, apiKey)
	for i := range 3 {
		if _, err := c.Buyers.Create(ctx, hebat(fmt.Sprintf("Paged Example %d Sdn. Bhd.", i))); err != nil {
			log.Fatal(err)
		}
	}
	for b, err := range c.Buyers.All(ctx, &client.PartyListOptions{Search: "paged example", ListOptions: client.ListOptions{PerPage: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Name, b.IsReady)
	}
	// Output:
	// Paged Example 2 Sdn. Bhd. true
	// Paged Example 1 Sdn. Bhd. true
	// Paged Example 0 Sdn. Bhd. true
}

// An idempotency key makes a POST safe to retry.
func ExampleIdempotencyKey() {
	c := client.New(serverURL, apiKey, client.WithRetries(3))
	b, err := c.Buyers.Create(context.Background(), hebat("Idempotent Sdn. Bhd."),
		client.IdempotencyKey("buyer-hebat-idempotent-1"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Name)
	// Output: Idempotent Sdn. Bhd.
}

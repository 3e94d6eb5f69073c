package client_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/client"
)

// listPage is a page of 15 ten-line invoices as the service writes it.
func listPage() string {
	line := `{"classifications":["001"],"productDescription":"USB-C cable","quantity":1,"unitCode":"H87","unitPrice":9.42,` +
		`"discountRate":null,"discountDescription":"","feeOrChargeRate":null,"feeOrChargeDescription":"",` +
		`"invoiceLineTaxes":[{"taxType":"01","taxRate":6,"exemptionReason":"","taxAmount":"0.57"}],"subtotal":"9.42",` +
		`"discountAmount":"0.00","feeOrChargeAmount":"0.00","totalExcludingTax":"9.42","taxAmount":"0.57","totalIncludingTax":"9.99"}`
	lines := strings.Repeat(line+",", 9) + line
	var docs []string
	for i := range 15 {
		docs = append(docs, fmt.Sprintf(`{"id":"01a20a8e-b769-7715-b723-a13ed9ddb0%02d","type":"invoice","typeCode":"01","status":"draft",`+
			`"buyerId":"01a20a8e-b769-7715-b723-a13ed9ddb0b0","invoiceSerialNumber":"INV-%d","currencyCode":"MYR","exchangeRate":null,`+
			`"autoCalculate":true,"erpIssuedAt":null,"invoiceLines":[%s],"subtotal":"94.20","totalExcludingTax":"94.20",`+
			`"totalTaxAmount":"5.70","totalIncludingTax":"99.90","roundingAmount":"0.00","totalPayableAmount":"99.90",`+
			`"taxSubtotals":[{"taxType":"01","taxRate":6,"taxableAmount":"94.20","taxAmount":"5.70"}],`+
			`"createdAt":"2026-11-23T22:37:34.953462Z","updatedAt":"2026-11-23T22:37:34.953462Z"}`, i, i, lines))
	}
	return `{"success":true,"data":[` + strings.Join(docs, ",") + `],"meta":{"page":1,"per_page":15,"total":13700,"last_page":914}}`
}

// BenchmarkList: what the client costs over plain net/http for a list page
// (the load harness measures the service through it).
func BenchmarkList(b *testing.B) {
	body := listPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body))) // as the service sends it
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL, "k", client.WithRetries(0))
	b.Run("net-http", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			resp, err := http.Get(srv.URL + "/api/v1/invoices")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("Do-nil", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := c.Do(ctx, &client.Request{Method: "GET", Path: "/api/v1/invoices"}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("typed", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			p, err := c.Documents.List(ctx, nil)
			if err != nil || len(p.Items) != 15 || p.Meta.Total != 13700 {
				b.Fatal(err)
			}
		}
	})
}

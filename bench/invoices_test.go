package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestInvoiceBody(t *testing.T) {
	var doc struct {
		BuyerID       string `json:"buyerId"`
		Serial        string `json:"invoiceSerialNumber"`
		AutoCalculate bool   `json:"autoCalculate"`
		Lines         []struct {
			Quantity float64 `json:"quantity"`
			Taxes    []struct {
				TaxType string `json:"taxType"`
			} `json:"invoiceLineTaxes"`
		} `json:"invoiceLines"`
	}
	if err := json.Unmarshal([]byte(invoiceBody("b-1", "S-1")), &doc); err != nil {
		t.Fatalf("invoiceBody is not JSON: %v", err)
	}
	if doc.BuyerID != "b-1" || doc.Serial != "S-1" || !doc.AutoCalculate || len(doc.Lines) != 10 {
		t.Errorf("invoiceBody = %+v, want buyer b-1, serial S-1, autoCalculate and 10 lines", doc)
	}
	for i, l := range doc.Lines {
		if l.Quantity <= 0 || len(l.Taxes) != 1 {
			t.Errorf("line %d = %+v", i, l)
		}
	}
}

// TestSerials checks that serials of a run share one length, so that the
// full serial of one is a prefix of no other.
func TestSerials(t *testing.T) {
	b := &bench{}
	b.inv.prefix = newSerialPrefix()
	first := b.nextSerial()
	b.inv.seq.Store(12344)
	later := b.nextSerial()
	if !strings.HasPrefix(first, b.inv.prefix) || len(first) != len(later) || !strings.HasSuffix(later, "00012345") {
		t.Errorf("serials %q and %q: want the prefix %q and one length", first, later, b.inv.prefix)
	}
	if strings.HasPrefix(later, first) {
		t.Errorf("%q is a prefix of %q", first, later)
	}
}

func TestInvoicesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "inv.tsv")
	b := &bench{keys: []string{"k0", "k1"}}
	b.inv.pool = []invoiceRef{{id: "a", serial: "S-1", key: 0}, {id: "b", serial: "S-2", key: 1}}
	if err := b.writeInvoices(path); err != nil {
		t.Fatal(err)
	}
	r := &bench{keys: []string{"k0", "k1"}}
	if err := r.readInvoices(path); err != nil {
		t.Fatal(err)
	}
	if len(r.inv.pool) != 2 || r.inv.pool[1] != b.inv.pool[1] {
		t.Errorf("read back %+v, want %+v", r.inv.pool, b.inv.pool)
	}
	one := &bench{keys: []string{"k0"}}
	if err := one.readInvoices(path); err == nil {
		t.Error("a key index beyond the keys was accepted")
	}
}

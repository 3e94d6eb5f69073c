package invoicing

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/money"
	"github.com/einvoice/einvoice/internal/testcert"
)

func num(t testing.TB, s string) *money.Number {
	t.Helper()
	n, err := money.ParseNumber(s)
	if err != nil {
		t.Fatal(err)
	}
	return &n
}

// tenDocument is a computed invoice of n lines with frozen parties.
func tenDocument(t testing.TB, n int) (*einvoice.Tenant, *einvoice.Document) {
	t.Helper()
	p := einvoice.DemoProfile()
	tenant := &einvoice.Tenant{ID: "01900000-0000-7000-8000-000000000001", Profile: p, UpdatedAt: time.Unix(1, 0)}
	buyer := &einvoice.Party{Name: "Hebat Trading", TIN: "C2584563200", IDType: "BRN", IDValue: "201901234567",
		SSTRegistrationNumber: "NA", Address: p.Address, Contact: p.Contact}
	d := &einvoice.Document{ID: "01900000-0000-7000-8000-000000000002", Kind: einvoice.KindInvoice, TypeCode: "01",
		InvoiceSerialNumber: "INV-BENCH-1", CurrencyCode: "MYR", AutoCalculate: true}
	for i := range n {
		d.Lines = append(d.Lines, einvoice.Line{Classifications: []string{"001"}, ProductDescription: fmt.Sprintf("Item %d", i),
			Quantity: num(t, "3"), UnitCode: "H87", UnitPrice: num(t, "19.90"),
			Taxes: []einvoice.LineTax{{TaxType: "01", TaxRate: num(t, "10")}}})
	}
	einvoice.Calculate(d)
	s, c := einvoice.SnapshotProfile(p), einvoice.SnapshotParty(buyer)
	d.Frozen = &einvoice.FrozenParties{Supplier: s, Customer: c}
	return tenant, d
}

// TestBuildSigned: with a certificate the UBL is version 1.1 and its
// signature verifies; without, version 1.0 and unsigned.
func TestBuildSigned(t *testing.T) {
	m := New(Options{NewID: func() string { return "x" }})
	tenant, d := tenDocument(t, 10)
	b, err := m.Build(context.Background(), tenant, d, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if b.Version != VersionUnsigned || dsig.Verify(b.UBL) == nil {
		t.Errorf("without a certificate: version %s, want 1.0 and no signature", b.Version)
	}
	tenant.Authority.CertificatePEM, tenant.Authority.PrivateKeyPEM = testcert.New(t, "Hebat Group Sdn. Bhd.", tenant.Profile.TIN)
	tenant.UpdatedAt = time.Unix(2, 0)
	if b, err = m.Build(context.Background(), tenant, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	if b.Version != VersionSigned {
		t.Errorf("with a certificate: version %s, want 1.1", b.Version)
	}
	if err := dsig.Verify(b.UBL); err != nil {
		t.Errorf("signed UBL does not verify: %v", err)
	}
	// Validate counts the signature instead of making it: the reserve must
	// cover what signing adds.
	size, err := m.ublSize(tenant, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if size < len(b.UBL) {
		t.Errorf("ublSize %d, below the signed document's %d bytes", size, len(b.UBL))
	}
}

// BenchmarkBuildSigned10Lines is UBL generation plus signing of a 10-line
// document (the target: under 2 ms).
func BenchmarkBuildSigned10Lines(b *testing.B) {
	m := New(Options{NewID: func() string { return "x" }})
	tenant, d := tenDocument(b, 10)
	tenant.Authority.CertificatePEM, tenant.Authority.PrivateKeyPEM = testcert.New(b, "Hebat Group Sdn. Bhd.", tenant.Profile.TIN)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Build(context.Background(), tenant, d, now); err != nil {
			b.Fatal(err)
		}
	}
}

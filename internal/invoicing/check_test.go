package invoicing_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
	"github.com/einvoice/einvoice/internal/testcert"
)

func checkSteps(pc *invoicing.ProfileCheck) string {
	var b []string
	for _, s := range pc.Steps {
		b = append(b, s.Name+":"+s.Status)
	}
	return strings.Join(b, " ")
}

// TestCheckProfileClock: the certificate is judged by the service's clock,
// at PUT /profile and in the go-live check: accepted while valid, shown
// with a warning as its expiry nears, and failing the check once expired.
func TestCheckProfileClock(t *testing.T) {
	w := newWorld(t, sqliteDSN(t))
	ctx := context.Background()
	pc, err := w.svc.CheckProfile(ctx, w.tenant.ID)
	if err != nil || !pc.Passed || checkSteps(pc) != "login:passed tin:passed certificate:skipped signature:skipped" {
		t.Fatalf("check without a certificate: %+v, %v", pc, err)
	}
	now := w.clk.Now()
	cert, key := testcert.Make(t, testcert.Options{Organisation: "Demo", TIN: w.tenant.Profile.TIN, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(40 * 24 * time.Hour)})
	au := w.tenant.Authority
	au.CertificatePEM, au.PrivateKeyPEM = cert, key
	ten, err := w.svc.UpdateProfile(ctx, w.tenant.ID, w.tenant.Profile, &au)
	if err != nil {
		t.Fatal(err)
	}
	if c := w.svc.Certificate(ten); c == nil || len(c.Warnings) != 0 {
		t.Errorf("certificate 40 days before expiry: %+v", c)
	}
	if pc, err = w.svc.CheckProfile(ctx, w.tenant.ID); err != nil || !pc.Passed || checkSteps(pc) != "login:passed tin:passed certificate:passed signature:passed" {
		t.Errorf("check with a certificate: %+v, %v", pc, err)
	}
	w.clk.Advance(30 * 24 * time.Hour)
	if c := w.svc.Certificate(ten); c == nil || len(c.Warnings) != 1 || c.Warnings[0] != "expires in 9 days" {
		t.Errorf("certificate 10 days before expiry: %+v", c)
	}
	w.clk.Advance(11 * 24 * time.Hour)
	pc, err = w.svc.CheckProfile(ctx, w.tenant.ID)
	if err != nil || pc.Passed || checkSteps(pc) != "login:passed tin:passed certificate:failed signature:passed" ||
		!strings.Contains(pc.Steps[2].Detail, "expired on") || pc.Steps[2].Action == "" {
		t.Errorf("check with an expired certificate: %+v, %v", pc, err)
	}
	// The same certificate uploaded again is refused now.
	_, err = w.svc.UpdateProfile(ctx, w.tenant.ID, w.tenant.Profile, &au)
	var e *einvoice.Error
	if !errors.As(err, &e) || e.Code != einvoice.CodeValidationFailed || !strings.Contains(strings.Join(e.Fields["authority.certificatePem"], " "), "expired on") {
		t.Errorf("an expired certificate uploaded: %v", err)
	}
}

// TestCheckProfileWithoutAuthority: a service without a tax authority fails
// the login step and skips the TIN.
func TestCheckProfileWithoutAuthority(t *testing.T) {
	w := newWorld(t, sqliteDSN(t))
	svc := invoicing.New(invoicing.Options{Store: w.store, Now: w.clk.Now})
	pc, err := svc.CheckProfile(context.Background(), w.tenant.ID)
	if err != nil || pc.Passed || checkSteps(pc) != "login:failed tin:skipped certificate:skipped signature:skipped" || pc.Steps[0].Action == "" {
		t.Errorf("check without an authority: %+v, %v", pc, err)
	}
	if _, err := svc.CheckProfile(context.Background(), "01900000-0000-7000-8000-00000000dead"); err == nil {
		t.Error("check of an unknown tenant: no error")
	}
}

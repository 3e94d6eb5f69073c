package invoicing_test

import (
	"context"
	"errors"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func TestPartyRules(t *testing.T) {
	ctx := context.Background()
	svc := newWorld(t, sqliteDSN(t)).svc
	a, _ := svc.CreateTenant(ctx, einvoice.DemoProfile())
	b, _ := svc.CreateTenant(ctx, einvoice.DemoProfile())
	p, err := svc.CreateParty(ctx, a.ID, einvoice.KindBuyer, &einvoice.Party{Name: "Draft", IsDraft: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.GetParty(ctx, b.ID, einvoice.KindBuyer, p.ID); einvoice.ErrorCode(err) != einvoice.CodeBuyerNotFound {
		t.Errorf("other tenant's buyer: %v, want BUYER_NOT_FOUND", err)
	}
	if _, err := svc.GetParty(ctx, a.ID, einvoice.KindSeller, p.ID); einvoice.ErrorCode(err) != einvoice.CodeSellerNotFound {
		t.Errorf("a buyer's id as a seller: %v, want SELLER_NOT_FOUND", err)
	}
	if _, err := svc.UpdateParty(ctx, p, &einvoice.Party{Name: "No longer a draft"}); einvoice.ErrorCode(err) != einvoice.CodeValidationFailed {
		t.Errorf("update to an incomplete non-draft: %v, want VALIDATION_FAILED", err)
	}
	var e *einvoice.Error
	_, err = svc.CreateParty(ctx, a.ID, einvoice.KindBuyer, &einvoice.Party{Name: "x", Address: einvoice.Address{State: "99"}, IsDraft: true})
	if !errors.As(err, &e) || len(e.Fields["address.state"]) != 1 {
		t.Errorf("bad state: %v, want a VALIDATION_FAILED naming address.state", err)
	}
}

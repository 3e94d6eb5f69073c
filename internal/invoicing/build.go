package invoicing

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/einvoice/einvoice/internal/dsig"
	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/ubl"
)

// Document versions: 1.1 is signed, 1.0 is not.
const (
	VersionUnsigned = "1.0"
	VersionSigned   = "1.1"
)

// signerEntry caches a tenant's signer for the tenant's settings it was made
// from.
type signerEntry struct {
	updated time.Time
	signer  *dsig.Signer
	err     error
}

// signer returns the tenant's signer, or nil when it has no certificate.
func (s *Service) signer(t *einvoice.Tenant) (*dsig.Signer, error) {
	a := t.Authority
	if a.CertificatePEM == "" && len(a.PKCS12) == 0 {
		return nil, nil
	}
	if e, ok := s.signers.Load(t.ID); ok && e.(*signerEntry).updated.Equal(t.UpdatedAt) {
		return e.(*signerEntry).signer, e.(*signerEntry).err
	}
	var sig *dsig.Signer
	var err error
	if len(a.PKCS12) > 0 {
		sig, err = dsig.NewSignerPKCS12(a.PKCS12, a.PKCS12Password)
	} else {
		sig, err = dsig.NewSigner([]byte(a.CertificatePEM), []byte(a.PrivateKeyPEM))
	}
	if err != nil {
		err = fmt.Errorf("tenant signing certificate: %w", err)
	}
	s.signers.Store(t.ID, &signerEntry{updated: t.UpdatedAt, signer: sig, err: err})
	return sig, err
}

// party returns the document's buyer or on-behalf seller (nil for a
// consolidated invoice).
func (s *Service) party(ctx context.Context, d *einvoice.Document) (*einvoice.Party, error) {
	var kind einvoice.PartyKind
	var id string
	switch {
	case d.OnBehalfSellerID != "":
		kind, id = einvoice.KindSeller, d.OnBehalfSellerID
	case d.BuyerID != "":
		kind, id = einvoice.KindBuyer, d.BuyerID
	default:
		return nil, nil
	}
	p, err := s.store.GetParty(ctx, d.TenantID, kind, id)
	if err != nil {
		return nil, fmt.Errorf("document party: %w", err)
	}
	return p, nil
}

// issueTime is the document's issue date and time: erpIssuedAt in UTC when
// given, else now (DECISIONS section 9), to the second.
func issueTime(d *einvoice.Document, now time.Time) time.Time {
	if d.ErpIssuedAt != nil {
		return d.ErpIssuedAt.UTC().Truncate(time.Second)
	}
	return now.UTC().Truncate(time.Second)
}

// Built is a document's UBL as it would be sent.
type Built struct {
	UBL      []byte
	Version  string
	IssuedAt time.Time
	Frozen   einvoice.FrozenParties
}

// Build writes the UBL of d for the tenant, signed when the tenant has a
// certificate. A document already frozen keeps its parties.
func (s *Service) Build(ctx context.Context, t *einvoice.Tenant, d *einvoice.Document, issuedAt time.Time) (*Built, error) {
	p, err := s.partyFor(ctx, d)
	if err != nil {
		return nil, err
	}
	return s.build(t, d, p, issuedAt, true)
}

// partyFor is the party a document's UBL needs: none once it is frozen.
func (s *Service) partyFor(ctx context.Context, d *einvoice.Document) (*einvoice.Party, error) {
	if d.Frozen != nil {
		return nil, nil
	}
	return s.party(ctx, d)
}

// build writes the UBL of d with its party; with sign, signed when the
// tenant has a certificate.
func (s *Service) build(t *einvoice.Tenant, d *einvoice.Document, p *einvoice.Party, issuedAt time.Time, sign bool) (*Built, error) {
	b := &Built{IssuedAt: issuedAt, Version: VersionUnsigned}
	if d.Frozen != nil {
		b.Frozen = *d.Frozen
	} else {
		b.Frozen.Supplier, b.Frozen.Customer = einvoice.Parties(d, t.Profile, p)
	}
	sig, err := s.signer(t)
	if err != nil {
		return nil, err
	}
	if sig != nil {
		b.Version = VersionSigned
	}
	body, err := ubl.Marshal(ubl.Input{Doc: d, Supplier: b.Frozen.Supplier, Customer: b.Frozen.Customer, IssuedAt: issuedAt, Version: b.Version})
	if err != nil {
		return nil, fmt.Errorf("write UBL: %w", err)
	}
	if sig != nil && sign {
		if body, err = sig.Sign(body, s.now()); err != nil {
			return nil, fmt.Errorf("sign UBL: %w", err)
		}
	}
	b.UBL = body
	return b, nil
}

// signatureReserve bounds what a signature adds to a document: the
// certificate in base64, plus 4 KB for the rest (digests, signature value,
// names, the fixed structure; about 2.5 KB with a 2048-bit key).
func signatureReserve(sig *dsig.Signer) int {
	return base64.StdEncoding.EncodedLen(len(sig.Certificate().Raw)) + 4096
}

// ublSize returns the size in bytes of the document's UBL as it would be
// sent now (validate's 300 KB check), with p its buyer or seller. It does
// not sign: a signature adds at most signatureReserve, counted instead, so
// that validating costs no RSA operation.
func (s *Service) ublSize(t *einvoice.Tenant, d *einvoice.Document, p *einvoice.Party) (int, error) {
	b, err := s.build(t, d, p, issueTime(d, s.now()), false)
	if err != nil {
		return 0, err
	}
	n := len(b.UBL)
	if sig, _ := s.signer(t); sig != nil {
		n += signatureReserve(sig)
	}
	return n, nil
}

// UBL returns the UBL sent for a document, or the UBL that would be sent now.
func (s *Service) UBL(ctx context.Context, tenantID, id string) ([]byte, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	body, err := s.store.GetUBL(ctx, tenantID, id)
	if err == nil && d.Status != einvoice.StatusDraft && d.Status != einvoice.StatusReady {
		return body, nil
	}
	if err != nil && !errors.Is(err, einvoice.ErrNotFound) {
		return nil, fmt.Errorf("get UBL: %w", err)
	}
	t, err := s.tenant(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	b, err := s.Build(ctx, t, d, issueTime(d, s.now()))
	if err != nil {
		return nil, einvoice.Errorf(einvoice.CodeDocumentNotReady, "The document cannot be written as UBL yet (%v): validate it first.", err)
	}
	return b.UBL, nil
}

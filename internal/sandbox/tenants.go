package sandbox

import (
	"context"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TenantStore finds the service's tenants on the sandbox environment
// (sqlstore.Store).
type TenantStore interface {
	// SandboxTenantsByClientID returns the tenants whose credentials carry
	// the client id, secrets opened.
	SandboxTenantsByClientID(ctx context.Context, clientID string) ([]*einvoice.Tenant, error)
	// SandboxTaxpayers returns the taxpayer-mode tenants matching every
	// non-empty argument.
	SandboxTaxpayers(ctx context.Context, tin, idType, idValue, name string) ([]*einvoice.Tenant, error)
}

// BindTenants makes o's sandbox bind the credentials in the tenants'
// profiles on the sandbox environment to their TINs (Options.Clients and
// Options.Taxpayers), as the built-in sandbox of `serve` does. They are
// looked up at each login, so that a change of either is followed and
// nothing needs registering. A taxpayer-mode tenant's client is bound to
// its TIN; an intermediary-mode tenant's to the intermediary's own TIN
// (authority.intermediaryTin), acting for the TIN it represents.
func BindTenants(o *Options, st TenantStore) {
	o.Clients = func(ctx context.Context, clientID string) ([]Client, error) {
		ts, err := st.SandboxTenantsByClientID(ctx, clientID)
		if err != nil {
			return nil, err
		}
		out := make([]Client, 0, len(ts))
		for _, t := range ts {
			out = append(out, tenantClient(t))
		}
		return out, nil
	}
	o.Taxpayers = func(ctx context.Context, q TaxpayerQuery) ([]Taxpayer, error) {
		ts, err := st.SandboxTaxpayers(ctx, q.TIN, q.IDType, q.IDValue, q.Name)
		if err != nil {
			return nil, err
		}
		out := make([]Taxpayer, 0, len(ts))
		for _, t := range ts {
			out = append(out, tenantTaxpayer(t))
		}
		return out, nil
	}
}

// tenantClient is the sandbox client of a tenant's credentials.
func tenantClient(t *einvoice.Tenant) Client {
	p, a := t.Profile, t.Authority
	if a.Mode == einvoice.ModeIntermediary {
		represented, _, _ := strings.Cut(a.OnBehalfOf, ":")
		if strings.TrimSpace(represented) == "" {
			represented = p.TIN
		}
		return Client{ID: a.ClientID, Secret: a.ClientSecret, TIN: a.IntermediaryTIN, Represents: []string{represented}}
	}
	return Client{ID: a.ClientID, Secret: a.ClientSecret, TIN: p.TIN, IDType: p.IDType, IDValue: p.IDValue, Name: p.Name}
}

// tenantTaxpayer is a taxpayer-mode tenant's profile as search TIN and
// taxpayer QR info show it.
func tenantTaxpayer(t *einvoice.Tenant) Taxpayer {
	p := t.Profile
	return Taxpayer{TIN: p.TIN, Name: p.Name, IDType: p.IDType, IDValue: p.IDValue, SST: p.SSTRegistrationNumber,
		TTX: p.TourismTaxRegistrationNumber, Email: p.Contact.Email, Phone: p.Contact.Phone, MSIC: p.MSICCode,
		Activity: p.BusinessActivityDescription, AddressLines: [3]string{p.Address.Line1, p.Address.Line2, p.Address.Line3},
		PostalZone: p.Address.PostCode, City: p.Address.City, State: p.Address.State, Country: p.Address.CountryCode}
}

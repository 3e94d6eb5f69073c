package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

const tenantColumns = `id, name, tin, id_type, id_value, sst_number, ttx_number, msic_code, activity,
	address_line1, address_line2, address_line3, city, state, post_code, country_code,
	phone, email, contact_name, fax,
	auth_environment, auth_mode, auth_on_behalf_of, auth_client_id, auth_client_secret_enc,
	auth_certificate_pem, auth_private_key_enc, auth_pkcs12_enc, auth_pkcs12_password_enc,
	created_at, updated_at, auth_intermediary_tin, consolidation_relaxed_until`

// tenantArgs returns the values of tenantColumns, secrets sealed.
func (s *Store) tenantArgs(t *einvoice.Tenant) ([]any, error) {
	p, a := &t.Profile, &t.Authority
	var sealed [4]string
	for i, plain := range [][]byte{[]byte(a.ClientSecret), []byte(a.PrivateKeyPEM), a.PKCS12, []byte(a.PKCS12Password)} {
		if len(plain) == 0 {
			continue
		}
		v, err := s.secrets.Seal(plain)
		if err != nil {
			return nil, fmt.Errorf("seal secret: %w", err)
		}
		sealed[i] = v
	}
	return []any{t.ID, p.Name, p.TIN, p.IDType, p.IDValue, p.SSTRegistrationNumber, p.TourismTaxRegistrationNumber,
		p.MSICCode, p.BusinessActivityDescription,
		p.Address.Line1, p.Address.Line2, p.Address.Line3, p.Address.City, p.Address.State, p.Address.PostCode, p.Address.CountryCode,
		p.Contact.Phone, p.Contact.Email, p.Contact.Name, p.Contact.Fax,
		a.Environment, a.Mode, a.OnBehalfOf, a.ClientID, sealed[0], a.CertificatePEM, sealed[1], sealed[2], sealed[3],
		micros(t.CreatedAt), micros(t.UpdatedAt), a.IntermediaryTIN, p.ConsolidationRelaxedUntil}, nil
}

func (s *Store) scanTenant(row interface{ Scan(...any) error }) (*einvoice.Tenant, error) {
	var t einvoice.Tenant
	p, a := &t.Profile, &t.Authority
	var sealed [4]string
	var created, updated int64
	err := row.Scan(&t.ID, &p.Name, &p.TIN, &p.IDType, &p.IDValue, &p.SSTRegistrationNumber, &p.TourismTaxRegistrationNumber,
		&p.MSICCode, &p.BusinessActivityDescription,
		&p.Address.Line1, &p.Address.Line2, &p.Address.Line3, &p.Address.City, &p.Address.State, &p.Address.PostCode, &p.Address.CountryCode,
		&p.Contact.Phone, &p.Contact.Email, &p.Contact.Name, &p.Contact.Fax,
		&a.Environment, &a.Mode, &a.OnBehalfOf, &a.ClientID, &sealed[0], &a.CertificatePEM, &sealed[1], &sealed[2], &sealed[3],
		&created, &updated, &a.IntermediaryTIN, &p.ConsolidationRelaxedUntil)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	var plain [4][]byte
	for i, v := range sealed {
		if v == "" {
			continue
		}
		if plain[i], err = s.secrets.Open(v); err != nil {
			return nil, fmt.Errorf("open secret of tenant %s (is EINVOICE_SECRET_KEY the one it was stored with?): %w", t.ID, err)
		}
	}
	a.ClientSecret, a.PrivateKeyPEM, a.PKCS12, a.PKCS12Password = string(plain[0]), string(plain[1]), plain[2], string(plain[3])
	t.CreatedAt, t.UpdatedAt = fromMicros(created), fromMicros(updated)
	return &t, nil
}

func (s *Store) insertTenant(ctx context.Context, q execer, t *einvoice.Tenant) error {
	args, err := s.tenantArgs(t)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO tenants (`+tenantColumns+`) VALUES
		($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28,$29,$30,$31,$32,$33)`, args...)
	if err != nil {
		return fmt.Errorf("insert tenant: %w", classify(err))
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// CreateTenant inserts t.
func (s *Store) CreateTenant(ctx context.Context, t *einvoice.Tenant) error {
	return s.insertTenant(ctx, s.ws, t)
}

// GetTenant returns the tenant, or einvoice.ErrNotFound.
func (s *Store) GetTenant(ctx context.Context, id string) (*einvoice.Tenant, error) {
	if !einvoice.ValidID(id) {
		return nil, einvoice.ErrNotFound
	}
	return s.scanTenant(s.rs.QueryRowContext(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE id = $1`, id))
}

// ListTenants returns every tenant, oldest first.
func (s *Store) ListTenants(ctx context.Context) ([]*einvoice.Tenant, error) {
	out, err := s.queryTenants(ctx, `SELECT `+tenantColumns+` FROM tenants ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	return out, nil
}

// queryTenants runs a query of tenantColumns on the read pool and scans
// every row.
func (s *Store) queryTenants(ctx context.Context, query string, args ...any) ([]*einvoice.Tenant, error) {
	rows, err := s.rs.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*einvoice.Tenant
	for rows.Next() {
		t, err := s.scanTenant(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// UpdateTenant replaces the profile and authority settings of t.
func (s *Store) UpdateTenant(ctx context.Context, t *einvoice.Tenant) error {
	args, err := s.tenantArgs(t)
	if err != nil {
		return err
	}
	res, err := s.ws.ExecContext(ctx, `UPDATE tenants SET name=$2, tin=$3, id_type=$4, id_value=$5, sst_number=$6,
		ttx_number=$7, msic_code=$8, activity=$9, address_line1=$10, address_line2=$11, address_line3=$12, city=$13,
		state=$14, post_code=$15, country_code=$16, phone=$17, email=$18, contact_name=$19, fax=$20,
		auth_environment=$21, auth_mode=$22, auth_on_behalf_of=$23, auth_client_id=$24, auth_client_secret_enc=$25,
		auth_certificate_pem=$26, auth_private_key_enc=$27, auth_pkcs12_enc=$28, auth_pkcs12_password_enc=$29,
		updated_at=$30, auth_intermediary_tin=$31, consolidation_relaxed_until=$32 WHERE id=$1`, append(args[:29:29], args[30], args[31], args[32])...)
	if err != nil {
		return fmt.Errorf("update tenant: %w", classify(err))
	}
	return mustAffect(res)
}

// Bootstrap creates t and k if no bootstrap happened on this database before.
func (s *Store) Bootstrap(ctx context.Context, t *einvoice.Tenant, k *einvoice.APIKey, owner *einvoice.User, link *einvoice.UserToken) (bool, error) {
	created := false
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		created = false // a failed group runs this again
		res, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('bootstrapped', $1) ON CONFLICT (key) DO NOTHING`, t.ID)
		if err != nil {
			return fmt.Errorf("bootstrap mark: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if err := s.insertTenant(ctx, tx, t); err != nil {
			return err
		}
		if err := insertAPIKey(ctx, tx, k); err != nil {
			return err
		}
		if owner != nil {
			if err := s.insertUser(ctx, tx, owner); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO memberships (tenant_id, user_id, role, created_at) VALUES ($1,$2,$3,$4)`,
				t.ID, owner.ID, string(einvoice.RoleOwner), micros(owner.CreatedAt)); err != nil {
				return fmt.Errorf("bootstrap owner: %w", err)
			}
		}
		if link != nil {
			if err := insertUserToken(ctx, tx, link); err != nil {
				return err
			}
		}
		created = true
		return nil
	})
	return created, err
}

// mustAffect returns ErrNotFound when an UPDATE or DELETE changed no row.
func mustAffect(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return einvoice.ErrNotFound
	}
	return nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

const partyColumns = `id, tenant_id, kind, name, tin, id_type, id_value, sst_number, ttx_number, msic_code, activity,
	is_draft, address_line1, address_line2, address_line3, city, state, post_code, country_code,
	phone, email, contact_name, fax, created_at, updated_at, tin_check, tin_check_key, tin_checked_at`

func partyArgs(p *einvoice.Party) []any {
	return []any{p.ID, p.TenantID, string(p.Kind), p.Name, p.TIN, p.IDType, p.IDValue, p.SSTRegistrationNumber,
		p.TourismTaxRegistrationNumber, p.MSICCode, p.BusinessActivityDescription, p.IsDraft,
		p.Address.Line1, p.Address.Line2, p.Address.Line3, p.Address.City, p.Address.State, p.Address.PostCode, p.Address.CountryCode,
		p.Contact.Phone, p.Contact.Email, p.Contact.Name, p.Contact.Fax, micros(p.CreatedAt), micros(p.UpdatedAt),
		string(p.TINCheck.Status), p.TINCheck.Key, nullMicros(p.TINCheck.CheckedAt)}
}

func scanParty(row interface{ Scan(...any) error }) (*einvoice.Party, error) {
	var p einvoice.Party
	var kind string
	var created, updated int64
	var tinStatus string
	var tinAt sql.NullInt64
	err := row.Scan(&p.ID, &p.TenantID, &kind, &p.Name, &p.TIN, &p.IDType, &p.IDValue, &p.SSTRegistrationNumber,
		&p.TourismTaxRegistrationNumber, &p.MSICCode, &p.BusinessActivityDescription, &p.IsDraft,
		&p.Address.Line1, &p.Address.Line2, &p.Address.Line3, &p.Address.City, &p.Address.State, &p.Address.PostCode, &p.Address.CountryCode,
		&p.Contact.Phone, &p.Contact.Email, &p.Contact.Name, &p.Contact.Fax, &created, &updated,
		&tinStatus, &p.TINCheck.Key, &tinAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, einvoice.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	p.Kind, p.CreatedAt, p.UpdatedAt = einvoice.PartyKind(kind), fromMicros(created), fromMicros(updated)
	p.TINCheck.Status = einvoice.TINStatus(tinStatus)
	if tinAt.Valid {
		at := fromMicros(tinAt.Int64)
		p.TINCheck.CheckedAt = &at
	}
	return &p, nil
}

// CreateParty inserts p.
func (s *Store) CreateParty(ctx context.Context, p *einvoice.Party) error {
	_, err := s.ws.ExecContext(ctx, `INSERT INTO parties (`+partyColumns+`) VALUES
		($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27,$28)`, partyArgs(p)...)
	err = classify(err)
	if errors.Is(err, errForeignKey) {
		return fmt.Errorf("insert party: tenant %s: %w", p.TenantID, einvoice.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("insert party: %w", err)
	}
	return nil
}

// GetParty returns the party of the tenant, or einvoice.ErrNotFound.
func (s *Store) GetParty(ctx context.Context, tenantID string, kind einvoice.PartyKind, id string) (*einvoice.Party, error) {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return nil, einvoice.ErrNotFound
	}
	return scanParty(s.rs.QueryRowContext(ctx, `SELECT `+partyColumns+` FROM parties WHERE id = $1 AND tenant_id = $2 AND kind = $3`,
		id, tenantID, string(kind)))
}

// UpdateParty replaces every writable field of p.
func (s *Store) UpdateParty(ctx context.Context, p *einvoice.Party) error {
	a := partyArgs(p)
	res, err := s.ws.ExecContext(ctx, `UPDATE parties SET name=$4, tin=$5, id_type=$6, id_value=$7, sst_number=$8,
		ttx_number=$9, msic_code=$10, activity=$11, is_draft=$12, address_line1=$13, address_line2=$14, address_line3=$15,
		city=$16, state=$17, post_code=$18, country_code=$19, phone=$20, email=$21, contact_name=$22, fax=$23, updated_at=$24,
		tin_check=$25, tin_check_key=$26, tin_checked_at=$27
		WHERE id=$1 AND tenant_id=$2 AND kind=$3`, append(a[:23:23], a[24:]...)...)
	if err != nil {
		return fmt.Errorf("update party: %w", classify(err))
	}
	return mustAffect(res)
}

// DeleteParty removes the party; einvoice.ErrInUse while documents reference it.
func (s *Store) DeleteParty(ctx context.Context, tenantID string, kind einvoice.PartyKind, id string) error {
	if !einvoice.ValidID(id) || !einvoice.ValidID(tenantID) {
		return einvoice.ErrNotFound
	}
	res, err := s.ws.ExecContext(ctx, `DELETE FROM parties WHERE id = $1 AND tenant_id = $2 AND kind = $3`, id, tenantID, string(kind))
	err = classify(err)
	if errors.Is(err, errForeignKey) {
		return einvoice.ErrInUse
	}
	if err != nil {
		return fmt.Errorf("delete party: %w", err)
	}
	return mustAffect(res)
}

// likeEscaper escapes LIKE wildcards so that a search is a plain substring.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// ListParties returns one page of the tenant's parties, newest first.
func (s *Store) ListParties(ctx context.Context, tenantID string, kind einvoice.PartyKind, f einvoice.PartyFilter) (einvoice.Page[*einvoice.Party], error) {
	page := einvoice.Page[*einvoice.Party]{PageRequest: f.PageRequest, Items: []*einvoice.Party{}}
	if !einvoice.ValidID(tenantID) {
		return page, nil
	}
	where := `tenant_id = $1 AND kind = $2`
	args := []any{tenantID, string(kind)}
	if f.Search != "" {
		// SQLite's LIKE ignores ASCII case as its lower() does (neither folds
		// other letters): matching the name itself lets the count read the
		// parties_name index alone.
		name := `lower(name)`
		if s.engine == SQLite {
			name = `name`
		}
		where += ` AND (` + name + ` LIKE $3 ESCAPE '\' OR tin = $4)`
		args = append(args, "%"+likeEscaper.Replace(strings.ToLower(f.Search))+"%", strings.ToUpper(f.Search))
	}
	if err := s.rs.QueryRowContext(ctx, `SELECT COUNT(*) FROM parties WHERE `+where, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("count parties: %w", err)
	}
	if page.Total == 0 || f.Offset() >= page.Total {
		return page, nil
	}
	n := len(args)
	rows, err := s.rs.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM parties WHERE %s ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`,
		partyColumns, where, n+1, n+2), append(args, f.PerPage, f.Offset())...)
	if err != nil {
		return page, fmt.Errorf("list parties: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanParty(rows)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, p)
	}
	return page, rows.Err()
}

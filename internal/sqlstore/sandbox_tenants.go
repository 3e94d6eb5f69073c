package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// SandboxTenantsByClientID returns the tenants on the sandbox environment
// whose credentials carry clientID (secrets opened): the built-in sandbox
// binds them to their TINs.
func (s *Store) SandboxTenantsByClientID(ctx context.Context, clientID string) ([]*einvoice.Tenant, error) {
	return s.sandboxTenants(ctx, `auth_client_id = $2`, clientID)
}

// SandboxTaxpayers returns the taxpayer-mode tenants on the sandbox
// environment matching every non-empty argument (TIN, id type and value
// exactly, name ignoring case), at most 100.
func (s *Store) SandboxTaxpayers(ctx context.Context, tin, idType, idValue, name string) ([]*einvoice.Tenant, error) {
	conds := []string{"auth_mode = $2"}
	args := []any{einvoice.ModeTaxpayer}
	for _, f := range []struct{ col, v string }{{"upper(tin)", strings.ToUpper(tin)}, {"upper(id_type)", strings.ToUpper(idType)},
		{"id_value", idValue}, {"lower(name)", strings.ToLower(name)}} {
		if v := strings.TrimSpace(f.v); v != "" {
			args = append(args, v)
			conds = append(conds, fmt.Sprintf("%s = $%d", f.col, len(args)+1))
		}
	}
	return s.sandboxTenants(ctx, strings.Join(conds, " AND "), args...)
}

func (s *Store) sandboxTenants(ctx context.Context, cond string, args ...any) ([]*einvoice.Tenant, error) {
	out, err := s.queryTenants(ctx, `SELECT `+tenantColumns+` FROM tenants WHERE auth_environment = $1 AND `+cond+
		` ORDER BY created_at, id LIMIT 100`, append([]any{einvoice.EnvSandbox}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("find sandbox tenants: %w", err)
	}
	return out, nil
}

package cli

import (
	"context"
	"fmt"
	"os/user"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/invoicing"
)

// auditSynopsis is the usage line of einvoice audit verify.
const auditSynopsis = "einvoice audit verify [--db DB]    check the audit log's hash chain (exit 1 naming the first broken entry)"

// auditCommand runs einvoice audit SUBCOMMAND.
func (m *Main) auditCommand(ctx context.Context, cfg Config, args []string) error {
	if len(args) == 0 || args[0] != "verify" {
		return commandError("audit: name the command first: einvoice audit verify")
	}
	fs := m.newFlagSet("audit verify", auditSynopsis)
	cfg.dbFlag(fs.FlagSet)
	if _, err := fs.parse(args[1:]); err != nil {
		return err
	}
	svc, closeStore, err := m.adminService(ctx, &cfg)
	if err != nil {
		return err
	}
	defer closeStore()
	v, err := svc.VerifyAudit(ctx)
	if err != nil {
		return err
	}
	if v.Broken != nil {
		return fmt.Errorf("audit log broken at entry %d: %s (%d entries intact before it)", v.Broken.Seq, v.Broken.Problem, v.Entries)
	}
	fmt.Fprintf(m.Stdout, "audit log intact: %d entries, head %s\n", v.Entries, v.HeadHash)
	return nil
}

// cliActor is the actor of an administration command: the operating
// system's user who ran it.
func (m *Main) cliActor(tenantID string) einvoice.Actor {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if name == "" && m.Getenv != nil {
		name = m.Getenv("USER")
	}
	if name == "" {
		name = "unknown"
	}
	return einvoice.Actor{Kind: einvoice.ActorCLI, Name: name, TenantID: tenantID}
}

// recordCLI records in the audit log the change a command made, appended
// before the command returns (the command's service runs no writer).
func (m *Main) recordCLI(ctx context.Context, svc *invoicing.Service, tenantID, action, resType, resID string) {
	svc.RecordAudit(ctx, m.cliActor(tenantID), einvoice.AuditEntry{Action: action, ResourceType: resType, ResourceID: resID,
		Outcome: einvoice.AuditOK, Detail: "einvoice " + action})
}

// keyTenant returns the tenant of a key ("" when no tenant has it).
func keyTenant(ctx context.Context, svc *invoicing.Service, keyID string) string {
	ts, err := svc.ListTenants(ctx)
	if err != nil {
		return ""
	}
	for _, t := range ts {
		keys, err := svc.ListAPIKeys(ctx, t.ID)
		if err != nil {
			continue
		}
		for _, k := range keys {
			if k.ID == keyID {
				return t.ID
			}
		}
	}
	return ""
}

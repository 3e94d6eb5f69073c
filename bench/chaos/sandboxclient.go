package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"

	"github.com/einvoice/einvoice/client"
)

// sandboxCredentials reads the id and secret `einvoice sandbox client add`
// prints.
var sandboxCredentials = regexp.MustCompile(`(?m)^client_id: (\S+)\nclient_secret: (\S+)$`)

// bindSandboxClient registers a client of the standalone sandbox bound to
// the demo tenant's TIN (`einvoice sandbox client add`: the sandbox knows
// only the clients registered with it) and sets the tenant's credentials
// to it.
func bindSandboxClient(ctx context.Context, c *cluster, a *api) error {
	api := a.newClient().any()
	p, err := api.Profile.Get(ctx)
	if err != nil {
		return fmt.Errorf("read the demo tenant's profile: %w", err)
	}
	cmd := exec.CommandContext(ctx, c.bin, "sandbox", "client", "add", "--db", filepath.Join(c.work, "sandbox.db"),
		"--tin", p.TIN, "--id-type", p.IDType, "--id-value", p.IDValue, "--name", p.Name)
	cmd.Env = c.sandbox.env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("einvoice sandbox client add: %w", err)
	}
	m := sandboxCredentials.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("einvoice sandbox client add printed %q", out)
	}
	if _, err := api.Profile.Update(ctx, p, &client.AuthorityUpdate{Environment: "sandbox", Mode: "taxpayer",
		ClientID: string(m[1]), ClientSecret: string(m[2])}); err != nil {
		return fmt.Errorf("set the demo tenant's sandbox credentials: %w", err)
	}
	return nil
}

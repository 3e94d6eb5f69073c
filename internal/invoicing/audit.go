package invoicing

import "github.com/einvoice/einvoice/internal/einvoice"

// serviceActor is the actor of the changes the service makes on its own
// (a verdict of the authority recorded by a poller): "service".
func serviceActor(tenantID string) einvoice.Actor {
	return einvoice.Actor{Kind: einvoice.ActorService, Name: "service", TenantID: tenantID}
}

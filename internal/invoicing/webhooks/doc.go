// Package webhooks is the application's webhooks and events capability: a
// tenant's webhooks (create, update, rotate the secret, delete, test,
// redeliver), its events (listed for 30 days, then purged) and the delivery
// workers that send each event to the webhooks that want it, signed, with
// retries (DECISIONS 15). Events are written by the other capabilities with
// the changes they tell of; Wake tells this process's delivery workers.
// It imports only the domain (package einvoice).
package webhooks

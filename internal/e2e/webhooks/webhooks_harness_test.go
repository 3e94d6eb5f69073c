package webhooks

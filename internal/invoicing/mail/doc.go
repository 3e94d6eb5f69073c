// Package mail is the application's mail capability (DECISIONS 21): a
// tenant's mail settings and templates, the message that shares a Valid
// document with its buyer (written by the lifecycle with the change that
// makes it Valid), sending again, the test message, the service's own
// mailbox, and the workers that send the outbox through the operator's mail
// server, once per message, across processes and crashes. Without a mail
// server every message is kept in the mailbox, to be read there. It imports
// only the domain (package einvoice).
package mail

package einvoice

import (
	"context"
	"fmt"
	"time"
)

// MailKind is what an outgoing message is for (DECISIONS 21).
type MailKind string

// The kinds of message of the mail outbox.
const (
	// MailDocument shares a Valid document with its buyer: its PDF visual
	// e-invoice attached, the validation link in the body.
	MailDocument MailKind = "document"
	// MailTest is the test message of the mail settings.
	MailTest MailKind = "test"
	// MailNotice is a notice to a person (an invitation, a password reset).
	MailNotice MailKind = "notice"
)

// MailState is where a message of the outbox stands.
type MailState string

// The states of a message.
const (
	// MailPending: to be sent (or tried again at NextAttemptAt).
	MailPending MailState = "pending"
	// MailSent: the mail server took it (SentAt).
	MailSent MailState = "sent"
	// MailFailed: refused for good (SMTP 5xx), or still failing after
	// MailRetryFor.
	MailFailed MailState = "failed"
	// MailKept: no mail server is configured; the message stays in the
	// service's own mailbox, to be read there.
	MailKept MailState = "kept"
	// MailNotApplicable: nothing was sent, for LastError's reason (the buyer
	// has no e-mail, mail is off for the tenant): the decision, recorded.
	MailNotApplicable MailState = "not_applicable"
)

// DocumentDelivery is how a Valid document reached its buyer by mail, as
// the document's emailDelivery shows it.
type DocumentDelivery struct {
	// State is pending, sent, failed or not_applicable.
	State       string     `json:"state"`
	Reason      string     `json:"reason,omitempty"`
	To          []string   `json:"to,omitempty"`
	SentAt      *time.Time `json:"sentAt,omitempty"`
	Unconfirmed bool       `json:"unconfirmed,omitempty"`
	Error       string     `json:"error,omitempty"`
	Attempts    int        `json:"attempts"`
	MailID      string     `json:"mailId"`
}

// NotSentNoServer is why a kept message was not sent.
const NotSentNoServer = "no mail server configured"

// NotSent is why m was not sent ("not sent: no mail server configured",
// "not sent: the buyer has no e-mail address"), or "" for a message that
// was or will be sent: the note the API and the dashboard show.
func (m *MailMessage) NotSent() string {
	switch m.State {
	case MailKept:
		return "not sent: " + NotSentNoServer
	case MailNotApplicable:
		return "not sent: " + m.LastError
	}
	return ""
}

// Delivery returns the document delivery m tells of.
func (m *MailMessage) Delivery() *DocumentDelivery {
	d := &DocumentDelivery{State: string(m.State), To: m.To, SentAt: m.SentAt, Unconfirmed: m.Unconfirmed, Attempts: m.Attempts, MailID: m.ID}
	switch m.State {
	case MailKept:
		d.State, d.Reason = string(MailNotApplicable), "no mail server is configured: the message is kept in the service's mailbox"
	case MailNotApplicable:
		d.Reason = m.LastError
	case MailFailed:
		d.Error = m.LastError
	case MailPending:
		d.Error = m.LastError
	}
	return d
}

// Mail limits and timings.
const (
	// MailRetryFor is how long temporary failures (SMTP 4xx, connection
	// errors) are retried.
	MailRetryFor = 3 * 24 * time.Hour
	// MaxMailRecipients bounds the addresses of one message (to and bcc).
	MaxMailRecipients = 20
	// MaxMailSubject bounds a subject, MaxMailBody a body or template.
	MaxMailSubject = 500
	MaxMailBody    = 64 << 10
)

// MailMessage is one message of the mail outbox: written in the
// transaction that makes it due (a document turned Valid, a request to send
// again), claimed by a worker of any process with a lease, and sent once.
type MailMessage struct {
	ID         string
	TenantID   string
	Kind       MailKind
	DocumentID string // the document shared (MailDocument)
	Language   string // "en" or "ms": of the templates used
	FromName   string // shown beside the operator's --mail-from address
	ReplyTo    string
	To         []string
	Bcc        []string
	Subject    string
	Body       string
	// AttachPDF: the document's PDF visual e-invoice is attached, rendered
	// when the message is sent.
	AttachPDF bool
	State     MailState
	Attempts  int
	// NextAttemptAt is when a pending message is due.
	NextAttemptAt time.Time
	LeaseOwner    string
	LeaseUntil    time.Time
	// InFlight is set, under the lease, once the whole message was handed to
	// the mail server and just before the end of its data is sent: a message
	// found in flight by another worker may have been delivered and is never
	// sent again (RFC 1047); it is recorded sent, Unconfirmed.
	InFlight    bool
	Unconfirmed bool
	LastError   string
	SentAt      *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// OutgoingMail is a message as a MailSender sends it.
type OutgoingMail struct {
	// ID makes the Message-ID (so it holds no spaces, <, > nor @; a UUID
	// does): the same message sent again has the same one.
	ID          string
	FromName    string
	ReplyTo     string
	To, Bcc     []string
	Subject     string
	Body        string
	Attachments []MailAttachment
}

// MailAttachment is a file attached to a message.
type MailAttachment struct {
	Name        string
	ContentType string
	Data        []byte
}

// MailSender sends a message through the operator's mail server. commit is
// called once the server accepted the sender, every recipient and the
// whole message, just before the end of the data: when it fails the
// message is abandoned (the server discards it), and its error returned
// wrapped (not a MailSendError). An error after commit without the
// server's answer (Code 0: the connection lost, the wait over) leaves the
// outcome unknown: the message may have been delivered.
type MailSender interface {
	Send(ctx context.Context, m *OutgoingMail, commit func() error) error
}

// MailSendError is a mail server's refusal. Temporary ones (4xx) are tried
// again; the others (5xx) are final.
type MailSendError struct {
	Code      int
	Message   string
	Temporary bool
}

func (e *MailSendError) Error() string {
	if e.Code == 0 {
		return "sending mail: " + e.Message
	}
	return fmt.Sprintf("the mail server answered %d %s", e.Code, e.Message)
}

// MailTemplate is a subject and a body in one language, Go text/template
// with the placeholders of MailFields.
type MailTemplate struct {
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// MailSettings are a tenant's choices for sharing its documents by mail.
type MailSettings struct {
	// Enabled: a document that turns Valid is mailed to its buyer.
	Enabled    bool     `json:"enabled"`
	SenderName string   `json:"senderName"`
	ReplyTo    string   `json:"replyTo"`
	Bcc        []string `json:"bcc"`
	// Language is the templates' language used for the buyers: "en" or "ms".
	Language  string                  `json:"language"`
	Templates map[string]MailTemplate `json:"templates"`
}

// MailFilter selects a page of a tenant's messages: of one document when
// DocumentID is set.
type MailFilter struct {
	DocumentID string
	State      MailState
	PageRequest
}

// MailResult is the outcome of an attempt to send a message, recorded by
// the worker that holds its lease, with the events it causes.
type MailResult struct {
	Message *MailMessage
	Notify  []*APIEvent
}

// MailStore keeps the mail outbox and the tenants' mail settings.
type MailStore interface {
	// EnqueueMail writes messages that are not part of a lifecycle write
	// (sending again, the test message, notices).
	EnqueueMail(ctx context.Context, ms ...*MailMessage) error
	// ClaimMail leases to owner, until leaseUntil, up to limit pending
	// messages that are due and whose lease has expired, oldest due first.
	ClaimMail(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*MailMessage, error)
	// MarkMailInFlight sets InFlight on a message owner holds;
	// ErrWrongState when the lease was lost.
	MarkMailInFlight(ctx context.Context, owner, id string, at time.Time) error
	// RecordMail writes what became of a message owner holds (its state,
	// attempts, error, the lease released) with r.Notify, in one
	// transaction; ErrWrongState when the lease was lost.
	RecordMail(ctx context.Context, owner string, r MailResult) error
	// GetMail returns one of a tenant's messages; ErrNotFound.
	GetMail(ctx context.Context, tenantID, id string) (*MailMessage, error)
	// ListMail returns a page of a tenant's messages, newest first.
	ListMail(ctx context.Context, tenantID string, f MailFilter) (Page[*MailMessage], error)
	// LatestDocumentMail returns the newest message sharing a document;
	// ErrNotFound when it has none.
	LatestDocumentMail(ctx context.Context, tenantID, documentID string) (*MailMessage, error)
	// GetMailSettings returns a tenant's settings; ErrNotFound when it never
	// saved any.
	GetMailSettings(ctx context.Context, tenantID string) (*MailSettings, error)
	// PutMailSettings saves a tenant's settings.
	PutMailSettings(ctx context.Context, tenantID string, s *MailSettings, at time.Time) error
}

package einvoice

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Webhook is an endpoint of a tenant that receives events by POST.
type Webhook struct {
	ID          string      `json:"id"`
	TenantID    string      `json:"-"`
	URL         string      `json:"url"`
	Events      []EventType `json:"events"`
	Description string      `json:"description"`
	Enabled     bool        `json:"enabled"`
	// Secret signs deliveries; PreviousSecret, until PreviousUntil, signs
	// them too after a rotation. Both are sealed at rest.
	Secret         string     `json:"-"`
	PreviousSecret string     `json:"-"`
	PreviousUntil  *time.Time `json:"previousSecretExpiresAt,omitempty"`
	// FailingSince is when the endpoint's current run of failures began.
	FailingSince   *time.Time `json:"failingSince,omitempty"`
	DisabledReason string     `json:"disabledReason,omitempty"`
	DisabledAt     *time.Time `json:"disabledAt,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
}

// Secrets are the secrets that sign a delivery at now: the current one, and
// the previous one within its 24 hours.
func (w *Webhook) Secrets(now time.Time) []string {
	s := []string{w.Secret}
	if w.PreviousSecret != "" && w.PreviousUntil != nil && now.Before(*w.PreviousUntil) {
		s = append(s, w.PreviousSecret)
	}
	return s
}

// Webhook limits and timings (DECISIONS 15).
const (
	MaxWebhookURL       = 2048
	MaxWebhookDesc      = 500
	WebhookRetryFor     = 72 * time.Hour // a delivery is retried that long
	WebhookDisableAfter = 72 * time.Hour // an endpoint failing that long is disabled
	SecretOverlap       = 24 * time.Hour // a rotated secret still signs that long
)

// DeliveryState is where a delivery is.
type DeliveryState string

// The delivery states.
const (
	DeliveryPending   DeliveryState = "pending"
	DeliveryDelivered DeliveryState = "delivered"
	DeliveryFailed    DeliveryState = "failed"
)

// WebhookDelivery is one event to deliver to one webhook, with its attempts.
type WebhookDelivery struct {
	ID            string        `json:"id"`
	WebhookID     string        `json:"webhookId"`
	TenantID      string        `json:"-"`
	EventID       string        `json:"eventId"`
	EventType     EventType     `json:"eventType"`
	ResourceID    string        `json:"-"`
	State         DeliveryState `json:"state"`
	AttemptCount  int           `json:"attemptCount"`
	NextAttemptAt *time.Time    `json:"nextAttemptAt,omitempty"`
	CreatedAt     time.Time     `json:"createdAt"`
	FinishedAt    *time.Time    `json:"finishedAt,omitempty"`
	Attempts      []Attempt     `json:"attempts"`

	// Filled by ClaimDeliveries for the worker.
	Body    []byte   `json:"-"`
	Webhook *Webhook `json:"-"`
}

// Attempt is one try of a delivery.
type Attempt struct {
	At time.Time `json:"at"`
	// StatusCode is the receiver's HTTP status, 0 when none came.
	StatusCode int    `json:"statusCode"`
	DurationMS int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"`
}

// AttemptResult is what a worker records of an attempt: the attempt, and
// what follows (the delivery's new state and next attempt, the webhook's
// failure run).
type AttemptResult struct {
	DeliveryID string
	Attempt    Attempt
	State      DeliveryState
	NextAt     time.Time
	// Delivered clears the webhook's failure run; otherwise it begins at
	// Attempt.At if none runs. Disable, when set, disables the webhook with
	// that reason.
	Delivered bool
	Disable   string
}

// WebhookStore keeps webhooks and their deliveries, scoped to a tenant.
type WebhookStore interface {
	// CreateWebhook inserts w (ID, TenantID, timestamps set).
	CreateWebhook(ctx context.Context, w *Webhook) error
	// GetWebhook returns the webhook, or ErrNotFound.
	GetWebhook(ctx context.Context, tenantID, id string) (*Webhook, error)
	// ListWebhooks returns one page, newest first.
	ListWebhooks(ctx context.Context, tenantID string, p PageRequest) (Page[*Webhook], error)
	// UpdateWebhook replaces every field of w, or returns ErrNotFound.
	UpdateWebhook(ctx context.Context, w *Webhook) error
	// DeleteWebhook removes the webhook and its deliveries; ErrNotFound.
	DeleteWebhook(ctx context.Context, tenantID, id string) error
	// ListDeliveries returns one page of a webhook's deliveries, newest
	// first, each with its attempts.
	ListDeliveries(ctx context.Context, tenantID, webhookID string, p PageRequest) (Page[*WebhookDelivery], error)
	// Redeliver queues the event of a delivery again for its webhook, as a
	// new delivery due at now; ErrNotFound.
	Redeliver(ctx context.Context, tenantID, webhookID, deliveryID string, now time.Time) (*WebhookDelivery, error)
	// SendTest stores e and queues it for the webhook alone.
	SendTest(ctx context.Context, webhookID string, e *APIEvent) (*WebhookDelivery, error)
	// ClaimDeliveries leases to owner, until leaseUntil, up to limit due
	// pending deliveries of enabled webhooks whose lease has expired, each
	// the earliest pending one of its resource for its webhook (so a later
	// event waits for the earlier), with its body and webhook.
	ClaimDeliveries(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]*WebhookDelivery, error)
	// RecordAttempt records an attempt of a delivery leased to owner;
	// ErrWrongState when the lease was lost.
	RecordAttempt(ctx context.Context, owner string, r AttemptResult) error
	// PendingDeliveries returns the number of pending deliveries and the
	// creation time of the oldest (zero when none).
	PendingDeliveries(ctx context.Context) (int, time.Time, error)
}

// CheckWebhookURL returns what is wrong with a webhook URL, or "": not an
// absolute http(s) URL, credentials in it, longer than MaxWebhookURL, or,
// unless allowPrivate, a host that is a loopback, private, link-local or
// unspecified address or localhost. Names are resolved and checked again at
// delivery.
func CheckWebhookURL(raw string, allowPrivate bool) string {
	if len(raw) > MaxWebhookURL {
		return "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "must be an absolute http or https URL"
	}
	if u.User != nil {
		return "must not carry credentials"
	}
	if u.Fragment != "" {
		return "must not carry a fragment"
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return "must be an absolute http or https URL"
	}
	if allowPrivate {
		return ""
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "must not point at a loopback, private or link-local address"
	}
	if ip, err := netip.ParseAddr(host); err == nil && !PublicAddr(ip) {
		return "must not point at a loopback, private or link-local address"
	}
	return ""
}

// PublicAddr reports whether ip may receive webhooks: not loopback,
// private, link-local, unspecified, multicast or in the shared (CGNAT)
// range.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	return !netip.MustParsePrefix("100.64.0.0/10").Contains(ip) && !netip.MustParsePrefix("0.0.0.0/8").Contains(ip)
}

// WebhookSender delivers webhook requests: the HTTP adapter, with its
// guards (timeout, size cap, no redirects, no private addresses).
type WebhookSender interface {
	// Send POSTs body with headers to url and returns the receiver's status
	// code (0 with an error when no answer came in time).
	Send(ctx context.Context, url string, headers map[string]string, body []byte) (int, error)
	// CheckURL resolves the URL's host and refuses private addresses
	// (unless allowed); a name that does not resolve is not an error.
	CheckURL(ctx context.Context, url string) error
}

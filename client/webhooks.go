package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// Webhook is an endpoint that receives the tenant's events by POST, signed
// with its secret (see VerifyWebhook).
type Webhook struct {
	ID          string   `json:"id,omitempty"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description,omitempty"`
	Enabled     bool     `json:"enabled"`
	// Secret signs the deliveries: answered by Create and RotateSecret
	// only. Keep it.
	Secret string `json:"secret,omitempty"`
	// PreviousSecretExpiresAt is when the secret replaced by RotateSecret
	// stops signing deliveries.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
	// FailingSince is when the endpoint's current run of failures began;
	// after 3 days of them it is disabled, saying why in DisabledReason.
	FailingSince   *time.Time `json:"failingSince,omitempty"`
	DisabledReason string     `json:"disabledReason,omitempty"`
	DisabledAt     *time.Time `json:"disabledAt,omitempty"`
	CreatedAt      time.Time  `json:"createdAt,omitzero"`
	UpdatedAt      time.Time  `json:"updatedAt,omitzero"`
}

// WebhookUpdate is a change of a webhook: the fields left nil are kept.
type WebhookUpdate struct {
	URL         *string   `json:"url,omitempty"`
	Events      *[]string `json:"events,omitempty"`
	Description *string   `json:"description,omitempty"`
	// Enabled true enables a disabled webhook again.
	Enabled *bool `json:"enabled,omitempty"`
}

// WebhookDelivery is one event sent (or to send) to one webhook, with every attempt.
type WebhookDelivery struct {
	ID        string `json:"id"`
	WebhookID string `json:"webhookId"`
	EventID   string `json:"eventId"`
	EventType string `json:"eventType"`
	// State is "pending", "delivered" or "failed" (given up after 3 days).
	State         string     `json:"state"`
	AttemptCount  int        `json:"attemptCount"`
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	FinishedAt    *time.Time `json:"finishedAt,omitempty"`
	Attempts      []Attempt  `json:"attempts"`
}

// Attempt is one try of a delivery.
type Attempt struct {
	At time.Time `json:"at"`
	// StatusCode is the receiver's status, 0 when it did not answer.
	StatusCode int    `json:"statusCode"`
	DurationMS int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"`
}

// WebhookService holds the operations of webhooks.
type WebhookService struct{ c *Client }

const webhooksPath = "/api/v1/webhooks"

// Create adds a webhook (URL and Events required); the answer carries its
// Secret, shown this once.
func (s *WebhookService) Create(ctx context.Context, w *Webhook, opts ...CallOption) (*Webhook, error) {
	body := struct {
		URL         string   `json:"url"`
		Events      []string `json:"events"`
		Description string   `json:"description,omitempty"`
	}{w.URL, w.Events, w.Description}
	var out Webhook
	if _, err := s.c.call(ctx, http.MethodPost, webhooksPath, nil, body, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Get returns one webhook (without its secret).
func (s *WebhookService) Get(ctx context.Context, id string) (*Webhook, error) {
	var out Webhook
	if _, err := s.c.call(ctx, http.MethodGet, webhooksPath+"/"+escape(id), nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// List returns one page of webhooks, newest first.
func (s *WebhookService) List(ctx context.Context, opts *ListOptions) (*Page[Webhook], error) {
	if opts == nil {
		opts = &ListOptions{}
	}
	return list[Webhook](ctx, s.c, webhooksPath, opts.query(nil))
}

// All iterates over every webhook, from opts.Page on.
func (s *WebhookService) All(ctx context.Context, opts *ListOptions) iter.Seq2[Webhook, error] {
	o := ListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[Webhook], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(w Webhook) string { return w.ID })
}

// Update changes the fields of u that are set (PATCH).
func (s *WebhookService) Update(ctx context.Context, id string, u *WebhookUpdate) (*Webhook, error) {
	var out Webhook
	if _, err := s.c.call(ctx, http.MethodPatch, webhooksPath+"/"+escape(id), nil, u, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete removes a webhook and its deliveries.
func (s *WebhookService) Delete(ctx context.Context, id string) error {
	_, err := s.c.call(ctx, http.MethodDelete, webhooksPath+"/"+escape(id), nil, nil, nil, nil)
	return err
}

// RotateSecret gives the webhook a new secret (in the answer); the old one
// keeps signing deliveries, beside the new, for 24 hours.
func (s *WebhookService) RotateSecret(ctx context.Context, id string) (*Webhook, error) {
	var out Webhook
	if _, err := s.c.call(ctx, http.MethodPost, webhooksPath+"/"+escape(id)+"/rotate-secret", nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Test queues a webhook.test event for the webhook and returns its delivery.
func (s *WebhookService) Test(ctx context.Context, id string) (*WebhookDelivery, error) {
	var out WebhookDelivery
	if _, err := s.c.call(ctx, http.MethodPost, webhooksPath+"/"+escape(id)+"/test", nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Deliveries returns one page of the webhook's deliveries, newest first,
// each with its attempts.
func (s *WebhookService) Deliveries(ctx context.Context, id string, opts *ListOptions) (*Page[WebhookDelivery], error) {
	if opts == nil {
		opts = &ListOptions{}
	}
	return list[WebhookDelivery](ctx, s.c, webhooksPath+"/"+escape(id)+"/deliveries", opts.query(nil))
}

// Redeliver queues the event of a delivery again and returns the new
// delivery.
func (s *WebhookService) Redeliver(ctx context.Context, id, deliveryID string) (*WebhookDelivery, error) {
	var out WebhookDelivery
	if _, err := s.c.call(ctx, http.MethodPost, webhooksPath+"/"+escape(id)+"/deliveries/"+escape(deliveryID)+"/redeliver", nil, nil, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

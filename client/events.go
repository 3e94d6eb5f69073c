package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/url"
	"time"
)

// The event types (APIEvent.Type; Webhook.Events).
const (
	EventDocumentSubmitted          = "document.submitted"
	EventDocumentValid              = "document.valid"
	EventDocumentInvalid            = "document.invalid"
	EventDocumentCancelled          = "document.cancelled"
	EventDocumentRejectionRequested = "document.rejection_requested"
	EventDocumentSubmissionFailed   = "document.submission_failed"
	// EventDocumentDelivered and EventDocumentDeliveryFailed tell of a
	// Valid document's mail to its buyer: sent, or failed for good. Their
	// data is a DeliveryEvent (APIEvent.Delivery).
	EventDocumentDelivered      = "document.delivered"
	EventDocumentDeliveryFailed = "document.delivery_failed"
	// EventWebhookTest is the type of the event Webhooks.Test sends.
	EventWebhookTest = "webhook.test"
)

// APIEvent is something that happened to a resource: written with the change
// it records, listed by Events and delivered to webhooks. For document
// events, Data is the document's status result (see Document), but for
// EventDocumentDelivered and EventDocumentDeliveryFailed a DeliveryEvent
// (see Delivery).
type APIEvent struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"createdAt"`
	Data      json.RawMessage `json:"data"`
}

// Document decodes the data of a document event: the document's status
// result, as Documents.Status answers it.
func (e *APIEvent) Document() (*SubmissionStatus, error) {
	var s SubmissionStatus
	if err := json.Unmarshal(e.Data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// EventListOptions filter a list of events.
type EventListOptions struct {
	// Type keeps the events of one type.
	Type string
	// After, an event id, lists the events after that one, oldest first
	// (otherwise newest first): what a client catching up asks.
	After string
	ListOptions
}

func (o *EventListOptions) query() url.Values {
	q := url.Values{}
	if o.Type != "" {
		q.Set("type", o.Type)
	}
	if o.After != "" {
		q.Set("after", o.After)
	}
	return o.ListOptions.query(q)
}

// EventService lists the tenant's events.
type EventService struct{ c *Client }

// List returns one page of events.
func (s *EventService) List(ctx context.Context, opts *EventListOptions) (*Page[APIEvent], error) {
	if opts == nil {
		opts = &EventListOptions{}
	}
	return list[APIEvent](ctx, s.c, "/api/v1/events", opts.query())
}

// All iterates over every event the options match, from opts.Page on.
func (s *EventService) All(ctx context.Context, opts *EventListOptions) iter.Seq2[APIEvent, error] {
	o := EventListOptions{}
	if opts != nil {
		o = *opts
	}
	fetch := func(ctx context.Context, page int) (*Page[APIEvent], error) {
		o.Page = page
		return s.List(ctx, &o)
	}
	return all(ctx, fetch, o.Page, func(e APIEvent) string { return e.ID })
}

package einvoice

import (
	"context"
	"encoding/json"
	"time"
)

// EventType names what an API event records (DECISIONS 15).
type EventType string

// The event types of documents. Those of received documents and
// consolidations join them with those features: adding a type is one line
// of EventTypes.
const (
	EventDocumentSubmitted          EventType = "document.submitted"
	EventDocumentValid              EventType = "document.valid"
	EventDocumentInvalid            EventType = "document.invalid"
	EventDocumentCancelled          EventType = "document.cancelled"
	EventDocumentRejectionRequested EventType = "document.rejection_requested"
	EventDocumentSubmissionFailed   EventType = "document.submission_failed"
	// The events of a Valid document's mail to its buyer (DECISIONS 21).
	EventDocumentDelivered      EventType = "document.delivered"
	EventDocumentDeliveryFailed EventType = "document.delivery_failed"
	// The events of received documents (DECISIONS 16).
	EventReceivedCreated   EventType = "received_document.created"
	EventReceivedCancelled EventType = "received_document.cancelled"
	// EventConsolidationCompleted: a consolidation made and submitted
	// every document (DECISIONS 17).
	EventConsolidationCompleted EventType = "consolidation.completed"
	// EventWebhookTest is the event of POST /webhooks/{id}/test: sent to
	// that webhook alone, never listed nor subscribed to.
	EventWebhookTest EventType = "webhook.test"
)

// EventTypes are the types a webhook may subscribe to and /events may be
// filtered by.
var EventTypes = []EventType{
	EventDocumentSubmitted,
	EventDocumentValid,
	EventDocumentInvalid,
	EventDocumentCancelled,
	EventDocumentRejectionRequested,
	EventDocumentSubmissionFailed,
	EventDocumentDelivered,
	EventDocumentDeliveryFailed,
	EventReceivedCreated,
	EventReceivedCancelled,
	EventConsolidationCompleted,
}

// KnownEventType reports whether t is one of EventTypes.
func KnownEventType(t EventType) bool {
	for _, k := range EventTypes {
		if k == t {
			return true
		}
	}
	return false
}

// EventRetention is how long events are kept.
const EventRetention = 30 * 24 * time.Hour

// APIEvent is an event of the API: written in the same transaction as the
// change it records (a transactional outbox), listed by GET /events and
// delivered to the webhooks subscribed to its type. Body is its JSON as
// listed and delivered: {id, type, createdAt, data}.
type APIEvent struct {
	ID       string
	TenantID string
	Type     EventType
	// ResourceID is the document (or other resource) the event is about:
	// deliveries of one resource's events to one webhook go in order.
	ResourceID string
	CreatedAt  time.Time
	Body       json.RawMessage
	// Seq orders events (set by the store).
	Seq int64
}

// NewAPIEvent returns the event with its body: data is the resource's
// status result.
func NewAPIEvent(id, tenantID string, typ EventType, resourceID string, at time.Time, data any) (*APIEvent, error) {
	body, err := json.Marshal(struct {
		ID        string    `json:"id"`
		Type      EventType `json:"type"`
		CreatedAt time.Time `json:"createdAt"`
		Data      any       `json:"data"`
	}{id, typ, at, data})
	if err != nil {
		return nil, err
	}
	return &APIEvent{ID: id, TenantID: tenantID, Type: typ, ResourceID: resourceID, CreatedAt: at, Body: body}, nil
}

// EventFilter selects a page of events: of one type when Type is set; when
// After is set, the events after that one, oldest first (else newest first).
type EventFilter struct {
	Type  EventType
	After string
	PageRequest
}

// EventStore keeps the API's events. WriteSubmission writes them with the
// change they record (SubmissionWrite.Notify).
type EventStore interface {
	// ListEvents returns one page of a tenant's events; ErrNotFound when
	// After names no event of the tenant.
	ListEvents(ctx context.Context, tenantID string, f EventFilter) (Page[*APIEvent], error)
	// PurgeEvents deletes the events created before, with their deliveries,
	// and returns how many.
	PurgeEvents(ctx context.Context, before time.Time) (int, error)
}

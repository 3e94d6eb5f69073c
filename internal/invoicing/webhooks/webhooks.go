package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Input is what a create or update of a webhook gives; a nil field
// is not given (an update keeps it; a create requires URL and Events).
type Input struct {
	URL         *string
	Events      *[]einvoice.EventType
	Description *string
	Enabled     *bool
}

// webhookSecretPrefix starts every signing secret.
const webhookSecretPrefix = "whsec_"

func newWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails
	return webhookSecretPrefix + hex.EncodeToString(b)
}

func webhookNotFound(id string) error {
	return einvoice.Errorf(einvoice.CodeNotFound, "No webhook with id %q.", id)
}

// checkWebhook applies in to w, refusing what is wrong field by field.
func (s *Service) checkWebhook(ctx context.Context, w *einvoice.Webhook, in Input, create bool) error {
	f := einvoice.FieldErrors{}
	if in.URL != nil {
		if msg := einvoice.CheckWebhookURL(*in.URL, s.allowPrivate); msg != "" {
			f.Add("url", "%s", msg)
		} else if s.sender != nil && !s.allowPrivate {
			if err := s.sender.CheckURL(ctx, *in.URL); err != nil {
				f.Add("url", "%s", err.Error())
			}
		}
		w.URL = *in.URL
	} else if create {
		f.Add("url", "is required")
	}
	if in.Events != nil {
		if len(*in.Events) == 0 {
			f.Add("events", "must name at least one event type")
		}
		var types []einvoice.EventType
		for i, t := range *in.Events {
			if !einvoice.KnownEventType(t) {
				f.Add(fmt.Sprintf("events[%d]", i), "is not an event type (one of %s)", eventTypeList())
				continue
			}
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
		w.Events = types
	} else if create {
		f.Add("events", "is required: the event types to receive")
	}
	if in.Description != nil {
		if !utf8.ValidString(*in.Description) || strings.ContainsRune(*in.Description, 0) || utf8.RuneCountInString(*in.Description) > einvoice.MaxWebhookDesc {
			f.Add("description", "must be text of at most %d characters", einvoice.MaxWebhookDesc)
		}
		w.Description = *in.Description
	}
	if in.Enabled != nil {
		if *in.Enabled && !w.Enabled {
			w.DisabledReason, w.DisabledAt, w.FailingSince = "", nil, nil
		}
		w.Enabled = *in.Enabled
	}
	return f.Err()
}

func eventTypeList() string {
	names := make([]string, len(einvoice.EventTypes))
	for i, t := range einvoice.EventTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// CreateWebhook stores a new webhook of the tenant with a new secret
// (returned in it, shown once).
func (s *Service) CreateWebhook(ctx context.Context, tenantID string, in Input) (*einvoice.Webhook, error) {
	now := s.now()
	w := &einvoice.Webhook{ID: s.newID(), TenantID: tenantID, Enabled: true, Secret: newWebhookSecret(), CreatedAt: now, UpdatedAt: now}
	if err := s.checkWebhook(ctx, w, in, true); err != nil {
		return nil, err
	}
	if err := s.store.CreateWebhook(ctx, w); err != nil {
		return nil, fmt.Errorf("create webhook: %w", err)
	}
	return w, nil
}

// GetWebhook returns a webhook of the tenant.
func (s *Service) GetWebhook(ctx context.Context, tenantID, id string) (*einvoice.Webhook, error) {
	w, err := s.store.GetWebhook(ctx, tenantID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, webhookNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get webhook: %w", err)
	}
	return w, nil
}

// ListWebhooks returns one page of the tenant's webhooks.
func (s *Service) ListWebhooks(ctx context.Context, tenantID string, p einvoice.PageRequest) (einvoice.Page[*einvoice.Webhook], error) {
	page, err := s.store.ListWebhooks(ctx, tenantID, p)
	if err != nil {
		return page, fmt.Errorf("list webhooks: %w", err)
	}
	return page, nil
}

// UpdateWebhook changes the fields given; enabling a disabled webhook
// clears why it was disabled.
func (s *Service) UpdateWebhook(ctx context.Context, tenantID, id string, in Input) (*einvoice.Webhook, error) {
	w, err := s.GetWebhook(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if err := s.checkWebhook(ctx, w, in, false); err != nil {
		return nil, err
	}
	w.UpdatedAt = s.now()
	if err := s.store.UpdateWebhook(ctx, w); errors.Is(err, einvoice.ErrNotFound) {
		return nil, webhookNotFound(id)
	} else if err != nil {
		return nil, fmt.Errorf("update webhook: %w", err)
	}
	return w, nil
}

// RotateWebhookSecret gives the webhook a new secret (returned in it); the
// old one still signs deliveries for 24 hours.
func (s *Service) RotateWebhookSecret(ctx context.Context, tenantID, id string) (*einvoice.Webhook, error) {
	w, err := s.GetWebhook(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	until := now.Add(einvoice.SecretOverlap)
	w.PreviousSecret, w.PreviousUntil, w.Secret, w.UpdatedAt = w.Secret, &until, newWebhookSecret(), now
	if err := s.store.UpdateWebhook(ctx, w); errors.Is(err, einvoice.ErrNotFound) {
		return nil, webhookNotFound(id)
	} else if err != nil {
		return nil, fmt.Errorf("rotate webhook secret: %w", err)
	}
	return w, nil
}

// DeleteWebhook removes a webhook and its deliveries.
func (s *Service) DeleteWebhook(ctx context.Context, tenantID, id string) error {
	if err := s.store.DeleteWebhook(ctx, tenantID, id); errors.Is(err, einvoice.ErrNotFound) {
		return webhookNotFound(id)
	} else if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	return nil
}

// ListDeliveries returns one page of a webhook's deliveries with their
// attempts.
func (s *Service) ListDeliveries(ctx context.Context, tenantID, id string, p einvoice.PageRequest) (einvoice.Page[*einvoice.WebhookDelivery], error) {
	page, err := s.store.ListDeliveries(ctx, tenantID, id, p)
	if errors.Is(err, einvoice.ErrNotFound) {
		return page, webhookNotFound(id)
	}
	if err != nil {
		return page, fmt.Errorf("list deliveries: %w", err)
	}
	return page, nil
}

// Redeliver queues a delivery's event again for its webhook.
func (s *Service) Redeliver(ctx context.Context, tenantID, id, deliveryID string) (*einvoice.WebhookDelivery, error) {
	if _, err := s.GetWebhook(ctx, tenantID, id); err != nil {
		return nil, err
	}
	d, err := s.store.Redeliver(ctx, tenantID, id, deliveryID, s.now())
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, einvoice.Errorf(einvoice.CodeNotFound, "No delivery with id %q for this webhook.", deliveryID)
	}
	if err != nil {
		return nil, fmt.Errorf("redeliver: %w", err)
	}
	s.Wake()
	return d, nil
}

// TestWebhook queues a webhook.test event for the webhook alone.
func (s *Service) TestWebhook(ctx context.Context, tenantID, id string) (*einvoice.WebhookDelivery, error) {
	w, err := s.GetWebhook(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	// Each test event is a resource of its own: tests wait for nothing.
	eventID := s.newID()
	e, err := einvoice.NewAPIEvent(eventID, tenantID, einvoice.EventWebhookTest, eventID, now,
		map[string]any{"webhookId": w.ID, "message": "A test event, sent on request."})
	if err != nil {
		return nil, fmt.Errorf("make test event: %w", err)
	}
	d, err := s.store.SendTest(ctx, w.ID, e)
	if err != nil {
		return nil, fmt.Errorf("send test event: %w", err)
	}
	s.Wake()
	return d, nil
}

// PendingDeliveries returns how many deliveries wait and since when the
// oldest has (for the metrics).
func (s *Service) PendingDeliveries(ctx context.Context) (int, time.Duration, error) {
	n, oldest, err := s.store.PendingDeliveries(ctx)
	if err != nil || oldest.IsZero() {
		return n, 0, err
	}
	return n, max(s.now().Sub(oldest), 0), nil
}

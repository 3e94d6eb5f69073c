package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/retry"
)

// Delivery timings.
const (
	// deliveryTimeout bounds one attempt: a 2xx within it is delivered.
	deliveryTimeout = 10 * time.Second
	// deliveryLease is how long a claimed delivery is held; another worker
	// (of any process) takes it over after that.
	deliveryLease = 2 * deliveryTimeout
	// deliveryBatch is how many deliveries a worker claims at once (and
	// sends concurrently).
	deliveryBatch = 32
	// deliveryIdle is how long an idle worker waits for work it was not
	// woken for (another replica's events).
	deliveryIdle  = 250 * time.Millisecond
	maxRetryDelay = time.Hour
)

// Wake wakes one idle delivery worker of this process: an event was just
// written.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run runs the delivery workers (DeliveryWorkers of them, when the service
// has a webhook sender) until ctx ends and they have finished the
// deliveries in hand.
func (s *Service) Run(ctx context.Context) {
	if s.sender == nil {
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < s.workers; i++ {
		wg.Go(func() { s.deliveryLoop(ctx) })
	}
	wg.Wait()
}

// deliveryLoop delivers until ctx ends, resting when there is nothing due
// until woken or idle.
func (s *Service) deliveryLoop(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := s.DeliverOnce(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "webhook deliveries", "error", err)
		}
		if n == deliveryBatch {
			s.Wake() // more may be due: share them out
			continue
		}
		if n > 0 && err == nil {
			continue
		}
		rest := retry.Around(deliveryIdle).Delay(1)
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-time.After(rest):
		}
	}
}

// DeliverOnce claims due deliveries (up to a batch), sends them at once and
// records each attempt. It returns how many it took.
func (s *Service) DeliverOnce(ctx context.Context) (int, error) {
	owner := "webhook:" + s.newID()
	now := s.now()
	ds, err := s.store.ClaimDeliveries(ctx, owner, now, now.Add(deliveryLease), deliveryBatch)
	if err != nil || len(ds) == 0 {
		return 0, err
	}
	var wg sync.WaitGroup
	for _, d := range ds {
		wg.Go(func() { s.deliver(ctx, owner, d) })
	}
	wg.Wait()
	return len(ds), nil
}

// Sign returns the Einvoice-Signature header of body at t: one v1 entry
// per secret.
func Sign(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		b.WriteString(",v1=" + hex.EncodeToString(mac.Sum(nil)))
	}
	return b.String()
}

// deliver makes one attempt of d and records it.
func (s *Service) deliver(ctx context.Context, owner string, d *einvoice.WebhookDelivery) {
	at := s.now()
	headers := map[string]string{
		"Content-Type":        "application/json",
		"User-Agent":          "einvoice-webhooks/1",
		"Einvoice-Event-Id":   d.EventID,
		"Einvoice-Event-Type": string(d.EventType),
		"Einvoice-Delivery":   d.ID,
		"Einvoice-Signature":  Sign(d.Webhook.Secrets(at), at, d.Body),
	}
	sendCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deliveryTimeout)
	start := time.Now()
	code, err := s.sender.Send(sendCtx, d.Webhook.URL, headers, d.Body)
	took := time.Since(start)
	cancel()
	r := einvoice.AttemptResult{DeliveryID: d.ID, Attempt: einvoice.Attempt{At: at, StatusCode: code, DurationMS: took.Milliseconds()}}
	outcome := "delivered"
	switch {
	case err == nil && code >= 200 && code < 300:
		r.State, r.Delivered = einvoice.DeliveryDelivered, true
	default:
		if err != nil {
			r.Attempt.Error = einvoice.Truncate(err.Error(), 500)
		} else {
			r.Attempt.Error = fmt.Sprintf("answered HTTP %d, not 2xx", code)
		}
		r.State, r.NextAt, outcome = einvoice.DeliveryPending, at.Add(s.retryDelay(d.AttemptCount+1)), "failed"
		if r.NextAt.After(d.CreatedAt.Add(einvoice.WebhookRetryFor)) {
			r.State, outcome = einvoice.DeliveryFailed, "gave_up"
		}
		if fs := d.Webhook.FailingSince; fs != nil && at.Sub(*fs) >= einvoice.WebhookDisableAfter {
			r.Disable = fmt.Sprintf("Disabled after failing every delivery since %s (last: %s). Fix the endpoint, then enable it again.",
				fs.Format(time.RFC3339), r.Attempt.Error)
		}
	}
	s.onDelivery(outcome, took)
	if err := s.store.RecordAttempt(context.WithoutCancel(ctx), owner, r); err != nil {
		s.log.WarnContext(ctx, "webhook attempt not recorded", "delivery_id", d.ID, "error", err)
	}
}

// retryDelay is the wait before attempt n+1 after n failed: RetryBase
// doubled per attempt up to an hour, with jitter (between half and all of
// it), so the first retry comes within RetryBase.
func (s *Service) retryDelay(n int) time.Duration {
	return retry.Policy{Base: s.retryBase, Max: maxRetryDelay, Jitter: retry.EqualJitter}.Delay(n)
}

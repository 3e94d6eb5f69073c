package cli

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/einvoice/einvoice/internal/invoicing"
)

// webhookMetrics count webhook delivery attempts by outcome and show the
// queue: the pending deliveries and the age of the oldest.
type webhookMetrics struct {
	reg      prometheus.Registerer
	attempts *prometheus.CounterVec
	duration prometheus.Histogram
}

func newWebhookMetrics(reg prometheus.Registerer) *webhookMetrics {
	m := &webhookMetrics{
		reg: reg,
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "einvoice_webhook_deliveries_total",
			Help: "Webhook delivery attempts by outcome: delivered, failed (to be retried) or gave_up (3 days of failures).",
		}, []string{"outcome"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "einvoice_webhook_delivery_duration_seconds",
			Help:    "Duration of webhook delivery attempts.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
	}
	reg.MustRegister(m.attempts, m.duration)
	return m
}

// delivery is invoicing.Options.OnDelivery.
func (m *webhookMetrics) delivery(outcome string, d time.Duration) {
	m.attempts.WithLabelValues(outcome).Inc()
	m.duration.Observe(d.Seconds())
}

// watch registers the gauges of the delivery queue, read from the database
// at each scrape (shared by the replicas).
func (m *webhookMetrics) watch(svc *invoicing.Service) {
	pending := func() (int, time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, age, err := svc.PendingDeliveries(ctx)
		if err != nil {
			return 0, 0
		}
		return n, age
	}
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "einvoice_webhook_deliveries_pending",
			Help: "Webhook deliveries waiting (for a retry, or for an earlier event of their resource), all replicas.",
		}, func() float64 { n, _ := pending(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "einvoice_webhook_oldest_pending_seconds",
			Help: "Age of the oldest pending webhook delivery (0 when none).",
		}, func() float64 { _, age := pending(); return age.Seconds() }),
	)
}

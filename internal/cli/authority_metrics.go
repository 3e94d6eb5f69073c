package cli

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// authorityMetrics count the calls to the tax authority and the calls its
// rate budgets held back. The endpoint label is one of myinvois's Endpoint
// constants, so the label sets are few.
type authorityMetrics struct {
	calls      *prometheus.CounterVec
	held       *prometheus.CounterVec
	waitedSecs *prometheus.CounterVec
}

func newAuthorityMetrics(reg prometheus.Registerer) *authorityMetrics {
	m := &authorityMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "einvoice_authority_calls_total",
			Help: "Calls to the tax authority by endpoint and HTTP status (0: no answer).",
		}, []string{"endpoint", "code"}),
		held: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "einvoice_authority_budget_held_total",
			Help: "Calls the authority's rate budget held back, by endpoint and outcome: waited (then sent) or deferred (not sent, to be retried).",
		}, []string{"endpoint", "outcome"}),
		waitedSecs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "einvoice_authority_budget_wait_seconds_total",
			Help: "Time calls waited for the authority's rate budget, by endpoint.",
		}, []string{"endpoint"}),
	}
	reg.MustRegister(m.calls, m.held, m.waitedSecs)
	return m
}

// call is myinvois.Options.OnCall.
func (m *authorityMetrics) call(endpoint string, status int, _ time.Duration) {
	m.calls.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
}

// budget is myinvois.Options.OnBudget.
func (m *authorityMetrics) budget(endpoint string, wait time.Duration, waited bool) {
	if !waited {
		m.held.WithLabelValues(endpoint, "deferred").Inc()
		return
	}
	m.held.WithLabelValues(endpoint, "waited").Inc()
	m.waitedSecs.WithLabelValues(endpoint).Add(wait.Seconds())
}

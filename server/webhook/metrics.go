package webhook

import "github.com/prometheus/client_golang/prometheus"

// Registerer is where the intake's metrics are registered (a prometheus.Registerer).
type Registerer = prometheus.Registerer

type metrics struct {
	received   *prometheus.CounterVec
	duplicates *prometheus.CounterVec
	rejected   *prometheus.CounterVec
}

func newMetrics(reg Registerer) *metrics {
	m := &metrics{
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chakshu_webhook_received_total",
			Help: "Webhook deliveries stored, by event.",
		}, []string{"event"}),
		duplicates: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chakshu_webhook_duplicates_total",
			Help: "Redeliveries of a delivery ID already stored (nothing stored), by event.",
		}, []string{"event"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chakshu_webhook_rejected_total",
			Help: "Webhook deliveries refused, by reason (signature, too_large, headers, read, store).",
		}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.received, m.duplicates, m.rejected)
	}
	return m
}

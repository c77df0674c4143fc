package proxy

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/catalog"
)

// socketMetrics are the WebSocket endpoints' series. The calls inside a
// socket are counted as requests of their routes (avaedge_requests_total).
type socketMetrics struct {
	conns    prometheus.Gauge
	subs     *prometheus.GaugeVec   // by kind
	notes    *prometheus.CounterVec // by kind
	messages prometheus.Counter
	slow     prometheus.Counter
	closed   *prometheus.CounterVec // by code
	refused  *prometheus.CounterVec // by bound
	feedSubs *prometheus.GaugeVec   // by source
}

func newSocketMetrics() *socketMetrics {
	m := &socketMetrics{
		conns: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "avaedge", Name: "ws_connections",
			Help: "Open WebSocket connections."}),
		subs: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "avaedge", Name: "ws_subscriptions",
			Help: "Live eth_subscribe subscriptions of the clients, by kind."}, []string{"kind"}),
		notes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Name: "ws_notifications_total",
			Help: "Notifications sent to clients, by kind."}, []string{"kind"}),
		messages: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "avaedge", Name: "ws_messages_total",
			Help: "Messages received from clients (each is served as a request of its calls' routes)."}),
		slow: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "avaedge", Name: "ws_slow_consumers_total",
			Help: "Clients disconnected because they did not read their messages (send queue full)."}),
		closed: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Name: "ws_closed_total",
			Help: "WebSocket connections closed, by close code."}, []string{"code"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "avaedge", Name: "ws_refused_total",
			Help: "Upgrades refused by a connection bound (key, address, server)."}, []string{"bound"}),
		feedSubs: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "avaedge", Name: "ws_feed_subscriptions",
			Help: "Subscriptions the edge holds on the chains (shared by the clients that subscribe alike), by source."}, []string{"source"}),
	}
	return m.init()
}

// init creates the series a dashboard reads before any socket has had
// them: every kind, source and bound, the close codes the edge sends.
func (m *socketMetrics) init() *socketMetrics {
	for _, k := range catalog.SubscriptionKinds {
		m.subs.WithLabelValues(k)
		m.notes.WithLabelValues(k)
	}
	for _, s := range []string{"upstream", "local"} {
		m.feedSubs.WithLabelValues(s)
	}
	for _, b := range []string{"key", "address", "server"} {
		m.refused.WithLabelValues(b)
	}
	for _, c := range []int{closeNormal, closeGoingAway, closePolicy, closeTooBig, closeBadGateway, closeOutOfCU} {
		m.closed.WithLabelValues(closeLabel(c))
	}
	return m
}

func (m *socketMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.conns, m.subs, m.notes, m.messages, m.slow, m.closed, m.refused, m.feedSubs}
}

// closeLabel is a close code as a label.
func closeLabel(code int) string { return strconv.Itoa(code) }

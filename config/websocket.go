package config

// WebSocket bounds the EVM endpoints' WebSocket twins (/ext/bc/C/ws, and in
// local mode every dev chain's /ext/bc/<chain>/ws): eth_subscribe and every
// other call of the EVM endpoint over one connection. Every field may be
// left out: zero means the proxy's documented default (docs/websockets.md).
// Connection counts are kept per replica.
type WebSocket struct {
	// Disable turns the endpoints off: their paths answer like any other
	// node path the edge does not serve.
	Disable bool `yaml:"disable"`
	// MaxConnections bounds the open connections of the replica. Zero means
	// 10,000.
	MaxConnections int `yaml:"max_connections"`
	// ConnectionsPerKey bounds the open connections of one key of the keys
	// file. Zero means 100.
	ConnectionsPerKey int `yaml:"connections_per_key"`
	// ConnectionsPerAddress bounds the open connections of one client
	// address (an IPv4 address, an IPv6 /64) without an issued key:
	// anonymous clients and keys nobody issued. Zero means 16.
	ConnectionsPerAddress int `yaml:"connections_per_address"`
	// SubscriptionsPerConnection bounds the live subscriptions of one
	// connection; eth_subscribe past it is refused. Zero means 100.
	SubscriptionsPerConnection int `yaml:"subscriptions_per_connection"`
	// MaxMessageBytes bounds one message (and so one frame) a client sends;
	// a larger one closes the connection with 1009. Zero means
	// server.max_body_bytes (1 MiB).
	MaxMessageBytes int64 `yaml:"max_message_bytes"`
	// MessagesPerSecond is the rate of messages one connection may send, in
	// bursts of twice as many; a faster client is read more slowly (each
	// message is admitted and charged like an HTTP request on top). Zero
	// means 50.
	MessagesPerSecond float64 `yaml:"messages_per_second"`
	// BytesPerSecond is the rate at which one connection's bytes are read,
	// frames of every kind together, in bursts of twice max_message_bytes.
	// Zero means 256 KiB.
	BytesPerSecond int64 `yaml:"bytes_per_second"`
	// SendQueue bounds the messages waiting to be written to one client;
	// a client that lets it fill is disconnected (1008), never waited for.
	// Zero means 1,024.
	SendQueue int `yaml:"send_queue"`
	// PingInterval is how often the edge pings a client; a client that
	// sends nothing (not even a pong) for two intervals is disconnected.
	// Zero means 30s.
	PingInterval Duration `yaml:"ping_interval"`
	// IdleTimeout closes a connection that has no subscription and sent no
	// message for this long (1000). Zero means 5m.
	IdleTimeout Duration `yaml:"idle_timeout"`
	// NotificationCost is the price of one notification in compute units,
	// charged to the subscriber's key as it is sent. Zero means 1.
	NotificationCost int64 `yaml:"notification_cost"`
}

// validate reports negative values through bad; zero values are the
// proxy's defaults.
func (w *WebSocket) validate(bad func(field, format string, args ...any)) {
	nonNegative(bad, "websocket.", []bound{
		{"max_connections", int64(w.MaxConnections)},
		{"connections_per_key", int64(w.ConnectionsPerKey)},
		{"connections_per_address", int64(w.ConnectionsPerAddress)},
		{"subscriptions_per_connection", int64(w.SubscriptionsPerConnection)},
		{"max_message_bytes", w.MaxMessageBytes},
		{"messages_per_second", int64(w.MessagesPerSecond * 1000)},
		{"bytes_per_second", w.BytesPerSecond},
		{"send_queue", int64(w.SendQueue)},
		{"ping_interval", int64(w.PingInterval)},
		{"idle_timeout", int64(w.IdleTimeout)},
		{"notification_cost", w.NotificationCost},
	})
}

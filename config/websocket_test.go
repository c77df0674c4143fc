package config

import (
	"testing"
	"time"
)

// TestWebSocket: the websocket section is read as written, zero values stay
// zero (the proxy's defaults), and a negative bound is refused naming its
// field.
func TestWebSocket(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       WebSocket
		wantErr    string
	}{
		{"defaults", "", WebSocket{}, ""},
		{"set", "websocket:\n  connections_per_key: 3\n  subscriptions_per_connection: 7\n  max_message_bytes: 4096\n  messages_per_second: 2.5\n  ping_interval: 5s\n  notification_cost: 2\n",
			WebSocket{ConnectionsPerKey: 3, SubscriptionsPerConnection: 7, MaxMessageBytes: 4096, MessagesPerSecond: 2.5, PingInterval: Duration(5 * time.Second), NotificationCost: 2}, ""},
		{"disable", "websocket: {disable: true}\n", WebSocket{Disable: true}, ""},
		{"negative connections", "websocket: {connections_per_address: -1}\n", WebSocket{}, "websocket.connections_per_address: must not be negative"},
		{"negative rate", "websocket: {messages_per_second: -0.5}\n", WebSocket{}, "websocket.messages_per_second: must not be negative"},
		{"negative idle", "websocket: {idle_timeout: -1s}\n", WebSocket{}, "websocket.idle_timeout: must not be negative"},
		{"unknown field", "websocket: {compression: true}\n", WebSocket{}, "field compression not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := loadCase(t, tc.yaml, tc.wantErr, func(string) string { return "" })
			if c == nil {
				return
			}
			if c.WebSocket != tc.want {
				t.Fatalf("websocket = %+v; want %+v", c.WebSocket, tc.want)
			}
		})
	}
}

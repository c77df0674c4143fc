package catalog

import "strings"

// The EVM endpoints have WebSocket twins, as avalanchego serves them:
// /ext/bc/C/ws beside /ext/bc/C/rpc, /ext/bc/<chain>/ws beside
// /ext/bc/<chain>/rpc. A socket carries the calls of its JSON-RPC twin, each
// allowed and priced by its own route as over HTTP, plus eth_subscribe and
// eth_unsubscribe (priced as EVMRoute); what only a socket has is named by
// EVMSocketRoute.

// EVMSocketRoute names the WebSocket endpoints for plans and charges: a
// plan's routes allow or deny WebSockets by this name, an upgrade is
// charged EVMSocketCost under it, and each notification the price the
// operator sets (websocket.notification_cost, 1 CU by default).
const EVMSocketRoute = "evm.ws"

// EVMSocketCost is the price of opening a connection.
const EVMSocketCost = 1

// SubscriptionKinds are the eth_subscribe kinds the sockets serve, as
// go-ethereum and the C-Chain name them.
var SubscriptionKinds = []string{"newHeads", "logs", "newPendingTransactions"}

// SocketTwin returns the JSON-RPC path of a WebSocket path
// (/ext/bc/C/ws → /ext/bc/C/rpc), and whether path is one.
func SocketTwin(path string) (string, bool) {
	p, ok := strings.CutSuffix(path, "/ws")
	if !ok || !strings.HasPrefix(p, "/ext/bc/") || strings.Count(p, "/") != 3 {
		return "", false
	}
	return p + "/rpc", true
}

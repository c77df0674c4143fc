package proxy

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/nodeclient"
)

// NetworkID asks a node upstream for its network id (info.getNetworkID), so
// node methods fall back to the devnet only when that network is mapped to it.
// The call goes as the edge's own calls do: through the breaker, with the
// upstream's headers.
func (u *Upstream) NetworkID(ctx context.Context) (uint32, error) {
	c := nodeclient.New("", jsonrpc.ClientOptions{HTTPClient: &http.Client{Transport: edgeCalls{u}}, MaxAnswerBytes: 1 << 16})
	return c.Info().NetworkID(ctx)
}

// edgeCalls sends a request the edge makes itself to the upstream: its path
// under the upstream's base, through the breaker, with only the operator's
// key and headers (outgoingShared).
type edgeCalls struct{ u *Upstream }

func (t edgeCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	return t.u.RoundTrip(t.u.outgoingShared(r.Context(), r, r.URL, body), true)
}

// NodeNetwork names a node upstream's network as the Data API does
// ("mainnet", "fuji"; "" for any other): configured when it is not zero,
// else learned from the node (NetworkID, within 5s). A nil up has none.
func NodeNetwork(ctx context.Context, up *Upstream, configured uint32) (string, error) {
	if up == nil {
		return "", nil
	}
	id := configured
	if id == 0 {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		var err error
		if id, err = up.NetworkID(ctx); err != nil {
			return "", err
		}
	}
	return avanet.DataAPIName(id), nil
}

package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// NetworkID asks a node upstream for its network id (info.getNetworkID), so
// node methods fall back to the devnet only when that network is mapped to it.
func (u *Upstream) NetworkID(ctx context.Context) (uint32, error) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}`)
	in, err := http.NewRequestWithContext(ctx, http.MethodPost, "/ext/info", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	in.Header.Set("Content-Type", "application/json")
	resp, err := u.RoundTrip(u.outgoing(ctx, in, nil, body, ""), true)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return 0, err
	}
	var out struct {
		Result struct {
			NetworkID string `json:"networkID"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result.NetworkID == "" {
		return 0, fmt.Errorf("info.getNetworkID: unexpected answer %d %.200s", resp.StatusCode, b)
	}
	id, err := strconv.ParseUint(out.Result.NetworkID, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("info.getNetworkID: %w", err)
	}
	return uint32(id), nil
}

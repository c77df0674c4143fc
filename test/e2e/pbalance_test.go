package e2e

import (
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
)

// TestPChainBalanceThen: the built binary in devnet mode, asked ewoq's
// P-Chain balance at the middle of each of its stakes that has ended
// since, files the stakes running then as staked (unlockedStaked and
// lockedStaked add up to them, as getUtxosByAddresses lists them), not as
// unlockedUnstaked.
func TestPChainBalanceThen(t *testing.T) {
	base := localEdge(t).URL + "/v1/networks/fuji/blockchains/p-chain/"
	raw, _ := hex.DecodeString(ewoqKeyHex)
	key, err := secp256k1.ToPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	ewoq, err := address.Format("P", "fuji", key.Address().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	type utxo struct {
		Amount                  string
		Staked                  bool
		BlockTimestamp          int64
		ConsumingBlockTimestamp int64
		UTXOStartTimestamp      int64 `json:"utxoStartTimestamp"`
		UTXOEndTimestamp        int64 `json:"utxoEndTimestamp"`
	}
	var all []utxo
	for next := ""; ; {
		r := do(t, "GET", base+"utxos?includeSpent=true&pageSize=100&addresses="+ewoq+next, nil, nil)
		var page struct {
			UTXOs         []utxo `json:"utxos"`
			NextPageToken string
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &page) != nil {
			t.Fatalf("ewoq's P-Chain UTXOs: %s", r)
		}
		all = append(all, page.UTXOs...)
		if page.NextPageToken == "" {
			break
		}
		next = "&pageToken=" + url.QueryEscape(page.NextPageToken)
	}
	checked := 0
	for _, ended := range all {
		if !ended.Staked || ended.UTXOEndTimestamp >= time.Now().Unix() || checked == 5 {
			continue
		}
		at := max(ended.BlockTimestamp, (ended.UTXOStartTimestamp+ended.UTXOEndTimestamp)/2)
		var want uint64
		for _, u := range all {
			held := u.BlockTimestamp <= at && (u.ConsumingBlockTimestamp == 0 || u.ConsumingBlockTimestamp > at)
			if held && u.Staked && u.UTXOStartTimestamp <= at && u.UTXOEndTimestamp > at {
				v, _ := strconv.ParseUint(u.Amount, 10, 64)
				want += v
			}
		}
		r := do(t, "GET", base+"balances?blockTimestamp="+strconv.FormatInt(at, 10)+"&addresses="+ewoq, nil, nil)
		var b struct {
			Balances struct {
				UnlockedStaked, LockedStaked []struct{ Amount string }
			}
		}
		if r.Status != 200 || json.Unmarshal(r.Body, &b) != nil {
			t.Fatalf("ewoq's balance at %d: %s", at, r)
		}
		var got uint64
		for _, am := range append(b.Balances.UnlockedStaked, b.Balances.LockedStaked...) {
			v, _ := strconv.ParseUint(am.Amount, 10, 64)
			got += v
		}
		if got != want || want == 0 {
			t.Errorf("ewoq's staked balance at %d: %d nAVAX; the UTXOs staked then add up to %d (%s)", at, got, want, r)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("ewoq has no ended stake on the devnet")
	}
}

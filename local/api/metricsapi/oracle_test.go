package metricsapi

import (
	"fmt"
	"math/big"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"time"
)

// This file holds the test's independent model: a generator of chains with
// known activity and a brute-force oracle that computes every metric from
// the raw blocks with the published definitions (docs/facts.md, section 3),
// using package time (not the engine's interval code) for alignment.

var kinds = []string{"CREATE", "CREATE2", "CREATE3", "CALL", "DELEGATECALL"}

// genChain makes n blocks of chainID from start. Gaps mix seconds, hours
// and days (so some hours, days and weeks are empty); some blocks share a
// timestamp, some sit exactly on an hour or midnight (Mondays and firsts of
// months among them) or one second before midnight. Addresses come from a
// small pool in mixed case, so chains share addresses.
func genChain(chainID uint64, n int, start time.Time, seed int64) []*Block {
	rng := rand.New(rand.NewSource(seed))
	// 30 addresses shared by every chain, then 20 of this chain only.
	pool := make([]string, 50)
	for i := range pool {
		pool[i] = fmt.Sprintf("0x%040x", i*7919+1)
		if i >= 30 {
			pool[i] = fmt.Sprintf("0x%020x%020x", chainID, i)
		}
		if i%3 == 0 {
			pool[i] = "0x" + strings.ToUpper(pool[i][2:])
		}
	}
	addr := func() string { return pool[rng.Intn(len(pool))] }
	ts := start.Unix()
	var out []*Block
	for i := range n {
		switch p := rng.Intn(100); {
		case p < 5: // same second as the previous block
		case p < 80:
			ts += 1 + rng.Int63n(3000)
		case p < 92:
			ts += rng.Int63n(86400)
		default:
			ts += rng.Int63n(3 * 86400)
		}
		switch rng.Intn(20) {
		case 0: // next midnight
			ts = time.Unix(ts, 0).UTC().Truncate(24 * time.Hour).Add(24 * time.Hour).Unix()
		case 1: // the second before the next midnight
			if m := time.Unix(ts, 0).UTC().Truncate(24*time.Hour).Add(24*time.Hour).Unix() - 1; m > ts {
				ts = m
			}
		case 2: // next hour
			ts = time.Unix(ts, 0).UTC().Truncate(time.Hour).Add(time.Hour).Unix()
		}
		b := &Block{ChainID: chainID, Number: uint64(100 + i*2), Timestamp: uint64(ts)}
		for range rng.Intn(5) {
			gas := uint64(21000 + rng.Intn(200000))
			tx := Tx{From: addr(), To: addr(), GasUsed: gas}
			if rng.Intn(8) == 0 {
				tx.To = "" // contract creation
			}
			switch rng.Intn(10) {
			case 0: // no receipt price
			case 1: // a price beyond 2^64 wei
				tx.GasPrice = new(big.Int).Lsh(big.NewInt(int64(1+rng.Intn(1000))), 70)
			default:
				tx.GasPrice = big.NewInt(int64(25e9 + rng.Intn(5e9)))
			}
			if tx.GasPrice != nil && rng.Intn(2) == 0 {
				tx.Fee = new(big.Int).Mul(tx.GasPrice, new(big.Int).SetUint64(gas))
			}
			b.Txs = append(b.Txs, tx)
			b.GasUsed += gas
		}
		for range rng.Intn(3) {
			tr := Transfer{From: addr(), To: addr()}
			switch rng.Intn(6) {
			case 0:
				tr.From = "" // mint
			case 1:
				tr.To = "" // burn
			}
			b.Transfers = append(b.Transfers, tr)
		}
		if rng.Intn(4) == 0 {
			for range 1 + rng.Intn(2) {
				d := rng.Intn(13) // 8 shared deployers, 5 of this chain
				if d >= 8 {
					d += 22
				}
				b.Creations = append(b.Creations, Creation{Deployer: pool[d], Address: fmt.Sprintf("0x%040x", i), Kind: kinds[rng.Intn(len(kinds))]})
			}
		}
		out = append(out, b)
	}
	return out
}

// oFloor aligns ts with package time: hour, 00:00 UTC, Monday, first of
// month.
func oFloor(ts int64, iv string) int64 {
	t := time.Unix(ts, 0).UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	switch iv {
	case "hour":
		return t.Truncate(time.Hour).Unix()
	case "day":
		return d.Unix()
	case "week":
		back := (int(d.Weekday()) + 6) % 7 // days since Monday
		return d.AddDate(0, 0, -back).Unix()
	}
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Unix()
}

func oNext(start int64, iv string) int64 {
	t := time.Unix(start, 0).UTC()
	switch iv {
	case "hour":
		return t.Add(time.Hour).Unix()
	case "day":
		return t.AddDate(0, 0, 1).Unix()
	case "week":
		return t.AddDate(0, 0, 7).Unix()
	}
	return t.AddDate(0, 1, 0).Unix()
}

type oPoint struct {
	ts    int64
	value string // exact integer, or a float in %g
	float bool
}

// oracle returns the series of metric at iv over chains, newest first, as
// the published definitions give it: every bucket from the first block's to
// the last block's.
func oracle(chains [][]*Block, metric, iv string) []oPoint {
	var first, last int64 = 1 << 62, -1
	for _, bs := range chains {
		if len(bs) > 0 {
			first = min(first, oFloor(int64(bs[0].Timestamp), iv))
			last = max(last, oFloor(int64(bs[len(bs)-1].Timestamp), iv))
		}
	}
	var out []oPoint
	for ts := first; ts <= last; ts = oNext(ts, iv) {
		out = append(out, oValue(chains, metric, iv, ts))
	}
	slices.Reverse(out)
	return out
}

func lc(a string) string { return strings.ToLower(a) }

func isCreate(k string) bool { return k == "CREATE" || k == "CREATE2" || k == "CREATE3" }

func oValue(chains [][]*Block, metric, iv string, ts int64) oPoint {
	end := oNext(ts, iv)
	set := map[string]bool{}
	add := func(a string) {
		if a != "" {
			set[lc(a)] = true
		}
	}
	sum := new(big.Int)
	var n int64
	f := 0.0
	for _, bs := range chains {
		var gas, txs uint64
		var lastIn, firstIn, prevDay int64 = -1, -1, -1
		i0 := 0
		if !strings.HasPrefix(metric, "cumulative") {
			// Start at the bucket's first block (the one before it is the
			// previous day's last).
			i0 = sort.Search(len(bs), func(i int) bool { return int64(bs[i].Timestamp) >= ts })
			if i0 > 0 {
				prevDay = int64(bs[i0-1].Timestamp)
			}
		}
		for i := i0; i < len(bs); i++ {
			b := bs[i]
			bt := int64(b.Timestamp)
			if strings.HasPrefix(metric, "cumulative") {
				if bt >= end {
					break
				}
				switch metric {
				case "cumulativeTxCount":
					n += int64(len(b.Txs))
				case "cumulativeContracts":
					for _, c := range b.Creations {
						if isCreate(c.Kind) {
							n++
						}
					}
				case "cumulativeDeployers":
					for _, c := range b.Creations {
						if isCreate(c.Kind) {
							add(c.Deployer)
						}
					}
				case "cumulativeAddresses":
					for _, t := range b.Txs {
						add(t.From)
						add(t.To)
					}
					for _, t := range b.Transfers {
						add(t.From)
						add(t.To)
					}
				}
				continue
			}
			if bt < ts {
				prevDay = bt
				continue
			}
			if bt >= end {
				break
			}
			if firstIn < 0 {
				firstIn = bt
			}
			lastIn = bt
			gas += b.GasUsed
			txs += uint64(len(b.Txs))
			switch metric {
			case "txCount":
				n += int64(len(b.Txs))
			case "gasUsed":
				n += int64(b.GasUsed)
			case "activeAddresses", "activeSenders":
				for _, t := range b.Txs {
					add(t.From)
					if metric == "activeAddresses" {
						add(t.To)
					}
				}
				for _, t := range b.Transfers {
					add(t.From)
					if metric == "activeAddresses" {
						add(t.To)
					}
				}
			case "contracts", "deployers":
				for _, c := range b.Creations {
					if isCreate(c.Kind) {
						n++
						add(c.Deployer)
					}
				}
			case "feesPaid":
				for _, t := range b.Txs {
					switch {
					case t.Fee != nil:
						sum.Add(sum, t.Fee)
					case t.GasPrice != nil:
						sum.Add(sum, new(big.Int).Mul(t.GasPrice, new(big.Int).SetUint64(t.GasUsed)))
					}
				}
			case "maxGasPrice":
				for _, t := range b.Txs {
					if t.GasPrice != nil && t.GasPrice.Cmp(sum) > 0 {
						sum.Set(t.GasPrice)
					}
				}
			case "avgGasPrice":
				for _, t := range b.Txs {
					if t.GasPrice != nil {
						sum.Add(sum, t.GasPrice)
						n++
					}
				}
			case "maxGps", "maxTps":
				if i > 0 {
					dt := float64(max(1, bt-int64(bs[i-1].Timestamp)))
					x := float64(b.GasUsed) / dt
					if metric == "maxTps" {
						x = float64(len(b.Txs)) / dt
					}
					f = max(f, x)
				}
			}
		}
		if (metric == "avgGps" || metric == "avgTps") && lastIn >= 0 {
			from := prevDay
			if from < 0 {
				from = firstIn
			}
			num := float64(gas)
			if metric == "avgTps" {
				num = float64(txs)
			}
			f += num / float64(max(1, lastIn-from))
		}
	}
	p := oPoint{ts: ts}
	switch metric {
	case "activeAddresses", "activeSenders", "deployers", "cumulativeAddresses", "cumulativeDeployers":
		p.value = fmt.Sprint(len(set))
	case "txCount", "gasUsed", "contracts", "cumulativeTxCount", "cumulativeContracts":
		p.value = fmt.Sprint(n)
	case "feesPaid", "maxGasPrice":
		p.value = sum.String()
	case "avgGasPrice":
		p.float = true
		if n > 0 {
			f, _ = new(big.Rat).SetFrac(sum, big.NewInt(n)).Float64()
		}
		p.value = fmt.Sprint(f)
	default:
		p.float = true
		p.value = fmt.Sprint(f)
	}
	return p
}

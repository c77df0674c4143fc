package node

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Upgrades is a network's upgrade schedule, as info.upgrades answers it
// (avalanchego upgrade.Config): RFC 3339 times, a plain number for the
// minimum P-chain height, the epoch duration in nanoseconds.
// avalanchego's client checks that the times never go backwards.
type Upgrades struct {
	ApricotPhase1Time            time.Time
	ApricotPhase2Time            time.Time
	ApricotPhase3Time            time.Time
	ApricotPhase4Time            time.Time
	ApricotPhase4MinPChainHeight uint64
	ApricotPhase5Time            time.Time
	ApricotPhasePre6Time         time.Time
	ApricotPhase6Time            time.Time
	ApricotPhasePost6Time        time.Time
	BanffTime                    time.Time
	CortinaTime                  time.Time
	CortinaXChainStopVertexID    avax.ID
	DurangoTime                  time.Time
	EtnaTime                     time.Time
	FortunaTime                  time.Time
	GraniteTime                  time.Time
	GraniteEpochDuration         time.Duration
	HeliconTime                  time.Time
}

// MarshalJSON writes the node's field names and forms.
func (u Upgrades) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ApricotPhase1Time            time.Time `json:"apricotPhase1Time"`
		ApricotPhase2Time            time.Time `json:"apricotPhase2Time"`
		ApricotPhase3Time            time.Time `json:"apricotPhase3Time"`
		ApricotPhase4Time            time.Time `json:"apricotPhase4Time"`
		ApricotPhase4MinPChainHeight uint64    `json:"apricotPhase4MinPChainHeight"`
		ApricotPhase5Time            time.Time `json:"apricotPhase5Time"`
		ApricotPhasePre6Time         time.Time `json:"apricotPhasePre6Time"`
		ApricotPhase6Time            time.Time `json:"apricotPhase6Time"`
		ApricotPhasePost6Time        time.Time `json:"apricotPhasePost6Time"`
		BanffTime                    time.Time `json:"banffTime"`
		CortinaTime                  time.Time `json:"cortinaTime"`
		CortinaXChainStopVertexID    string    `json:"cortinaXChainStopVertexID"`
		DurangoTime                  time.Time `json:"durangoTime"`
		EtnaTime                     time.Time `json:"etnaTime"`
		FortunaTime                  time.Time `json:"fortunaTime"`
		GraniteTime                  time.Time `json:"graniteTime"`
		GraniteEpochDuration         int64     `json:"graniteEpochDuration"`
		HeliconTime                  time.Time `json:"heliconTime"`
	}{
		u.ApricotPhase1Time, u.ApricotPhase2Time, u.ApricotPhase3Time, u.ApricotPhase4Time,
		u.ApricotPhase4MinPChainHeight, u.ApricotPhase5Time, u.ApricotPhasePre6Time, u.ApricotPhase6Time,
		u.ApricotPhasePost6Time, u.BanffTime, u.CortinaTime, u.CortinaXChainStopVertexID.String(),
		u.DurangoTime, u.EtnaTime, u.FortunaTime, u.GraniteTime, int64(u.GraniteEpochDuration), u.HeliconTime,
	})
}

// times is the schedule's times in activation order: Apricot phases 1 to 5,
// Pre6, 6 and Post6, Banff, Cortina, Durango, Etna, Fortuna, Granite and
// Helicon.
func (u *Upgrades) times() []*time.Time {
	return []*time.Time{
		&u.ApricotPhase1Time, &u.ApricotPhase2Time, &u.ApricotPhase3Time, &u.ApricotPhase4Time,
		&u.ApricotPhase5Time, &u.ApricotPhasePre6Time, &u.ApricotPhase6Time, &u.ApricotPhasePost6Time,
		&u.BanffTime, &u.CortinaTime, &u.DurangoTime, &u.EtnaTime, &u.FortunaTime, &u.GraniteTime,
		&u.HeliconTime,
	}
}

// schedule is a network's Upgrades from its times in activation order (as
// times lists them, RFC 3339) and its other values. It panics on a table
// that does not fit: the tables below are constants.
func schedule(minPChainHeight uint64, stopVertex string, epoch time.Duration, times ...string) Upgrades {
	u := Upgrades{ApricotPhase4MinPChainHeight: minPChainHeight, GraniteEpochDuration: epoch}
	if stopVertex != "" {
		u.CortinaXChainStopVertexID = avax.MustParseID(stopVertex)
	}
	fields := u.times()
	if len(times) != len(fields) {
		panic("node: an upgrade schedule needs " + strconv.Itoa(len(fields)) + " times")
	}
	for i, s := range times {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic("node: upgrade schedule: " + err.Error())
		}
		*fields[i] = t
	}
	return u
}

var (
	// mainnetUpgrades and fujiUpgrades are avalanchego upgrade/upgrade.go
	// (v1.14.2), with Helicon as v1.15.0 schedules it: mainnet
	// 2026-09-22T15:00:00Z, fuji 2026-07-28T15:00:00Z. Each: the minimum
	// P-Chain height of Apricot phase 4, Cortina's X-Chain stop vertex,
	// Granite's epoch, then the times in activation order (see times).
	mainnetUpgrades = schedule(793005, "jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga", 5*time.Minute,
		"2021-03-31T14:00:00Z", "2021-05-10T11:00:00Z", "2021-08-24T14:00:00Z", "2021-09-22T21:00:00Z",
		"2021-12-02T18:00:00Z", "2022-09-05T01:30:00Z", "2022-09-06T20:00:00Z", "2022-09-07T03:00:00Z",
		"2022-10-18T16:00:00Z", "2023-04-25T15:00:00Z", "2024-03-06T16:00:00Z", "2024-12-16T17:00:00Z",
		"2025-04-08T15:00:00Z", "2025-11-19T16:00:00Z", "2026-09-22T15:00:00Z")
	fujiUpgrades = schedule(47437, "2D1cmbiG36BqQMRyHt4kFhWarmatA1ighSpND3FeFgz3vFVtCZ", 5*time.Minute,
		"2021-03-26T14:00:00Z", "2021-05-05T14:00:00Z", "2021-08-16T19:00:00Z", "2021-09-16T21:00:00Z",
		"2021-11-24T15:00:00Z", "2022-09-06T20:00:00Z", "2022-09-06T20:00:00Z", "2022-09-07T06:00:00Z",
		"2022-10-03T14:00:00Z", "2023-04-06T15:00:00Z", "2024-02-13T16:00:00Z", "2024-11-25T16:00:00Z",
		"2025-03-13T15:00:00Z", "2025-10-29T15:00:00Z", "2026-07-28T15:00:00Z")
	// localUpgrades is every other network's: every upgrade active at
	// 2020-12-05T05:00:00Z, Helicon unscheduled (9999-12-01), a 30 s epoch.
	localUpgrades = schedule(0, "", 30*time.Second,
		"2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z",
		"2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z",
		"2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z",
		"2020-12-05T05:00:00Z", "2020-12-05T05:00:00Z", "9999-12-01T00:00:00Z")
)

// UpgradesFor returns the schedule of a network: mainnet's, fuji's, or the
// default one of every other network (all upgrades at 2020-12-05T05:00:00Z,
// Helicon unscheduled).
func UpgradesFor(networkID uint32) Upgrades {
	switch networkID {
	case avanet.Mainnet.ID:
		return mainnetUpgrades
	case avanet.Fuji.ID:
		return fujiUpgrades
	}
	return localUpgrades
}

func (s *service) getUpgrades(context.Context, *noArgs) (Upgrades, error) { return s.upgrades, nil }

package node

import (
	"context"
	"encoding/json"
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

func utc(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.UTC)
}

var (
	// initiallyActive is when every upgrade of a local network activates.
	initiallyActive = utc(2020, time.December, 5, 5, 0)
	// unscheduled is the placeholder of an upgrade without a date.
	unscheduled = utc(9999, time.December, 1, 0, 0)

	// mainnetUpgrades and fujiUpgrades are avalanchego upgrade/upgrade.go
	// (v1.14.2), with Helicon as v1.15.0 schedules it: mainnet
	// 2026-09-22T15:00:00Z, fuji 2026-07-28T15:00:00Z.
	mainnetUpgrades = Upgrades{
		ApricotPhase1Time:            utc(2021, time.March, 31, 14, 0),
		ApricotPhase2Time:            utc(2021, time.May, 10, 11, 0),
		ApricotPhase3Time:            utc(2021, time.August, 24, 14, 0),
		ApricotPhase4Time:            utc(2021, time.September, 22, 21, 0),
		ApricotPhase4MinPChainHeight: 793005,
		ApricotPhase5Time:            utc(2021, time.December, 2, 18, 0),
		ApricotPhasePre6Time:         utc(2022, time.September, 5, 1, 30),
		ApricotPhase6Time:            utc(2022, time.September, 6, 20, 0),
		ApricotPhasePost6Time:        utc(2022, time.September, 7, 3, 0),
		BanffTime:                    utc(2022, time.October, 18, 16, 0),
		CortinaTime:                  utc(2023, time.April, 25, 15, 0),
		CortinaXChainStopVertexID:    avax.MustParseID("jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga"),
		DurangoTime:                  utc(2024, time.March, 6, 16, 0),
		EtnaTime:                     utc(2024, time.December, 16, 17, 0),
		FortunaTime:                  utc(2025, time.April, 8, 15, 0),
		GraniteTime:                  utc(2025, time.November, 19, 16, 0),
		GraniteEpochDuration:         5 * time.Minute,
		HeliconTime:                  utc(2026, time.September, 22, 15, 0),
	}
	fujiUpgrades = Upgrades{
		ApricotPhase1Time:            utc(2021, time.March, 26, 14, 0),
		ApricotPhase2Time:            utc(2021, time.May, 5, 14, 0),
		ApricotPhase3Time:            utc(2021, time.August, 16, 19, 0),
		ApricotPhase4Time:            utc(2021, time.September, 16, 21, 0),
		ApricotPhase4MinPChainHeight: 47437,
		ApricotPhase5Time:            utc(2021, time.November, 24, 15, 0),
		ApricotPhasePre6Time:         utc(2022, time.September, 6, 20, 0),
		ApricotPhase6Time:            utc(2022, time.September, 6, 20, 0),
		ApricotPhasePost6Time:        utc(2022, time.September, 7, 6, 0),
		BanffTime:                    utc(2022, time.October, 3, 14, 0),
		CortinaTime:                  utc(2023, time.April, 6, 15, 0),
		CortinaXChainStopVertexID:    avax.MustParseID("2D1cmbiG36BqQMRyHt4kFhWarmatA1ighSpND3FeFgz3vFVtCZ"),
		DurangoTime:                  utc(2024, time.February, 13, 16, 0),
		EtnaTime:                     utc(2024, time.November, 25, 16, 0),
		FortunaTime:                  utc(2025, time.March, 13, 15, 0),
		GraniteTime:                  utc(2025, time.October, 29, 15, 0),
		GraniteEpochDuration:         5 * time.Minute,
		HeliconTime:                  utc(2026, time.July, 28, 15, 0),
	}
	localUpgrades = Upgrades{
		ApricotPhase1Time:     initiallyActive,
		ApricotPhase2Time:     initiallyActive,
		ApricotPhase3Time:     initiallyActive,
		ApricotPhase4Time:     initiallyActive,
		ApricotPhase5Time:     initiallyActive,
		ApricotPhasePre6Time:  initiallyActive,
		ApricotPhase6Time:     initiallyActive,
		ApricotPhasePost6Time: initiallyActive,
		BanffTime:             initiallyActive,
		CortinaTime:           initiallyActive,
		DurangoTime:           initiallyActive,
		EtnaTime:              initiallyActive,
		FortunaTime:           initiallyActive,
		GraniteTime:           initiallyActive,
		GraniteEpochDuration:  30 * time.Second,
		HeliconTime:           unscheduled,
	}
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

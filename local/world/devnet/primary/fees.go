package primary

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/avaedge/avaedge/jsonrpc"
	gen "github.com/avaedge/avaedge/local/source/devnet"
)

// The devnet's P-Chain fee parameters: avalanchego's local network's
// (genesis/genesis_local.go, LocalParams), whatever network the devnet is
// presented as, since its fees are the local network's. The JSON is
// platformvm's gas.Config and fee.Config (plain numbers).

// feeConfig is gas.Config: the dynamic fee of P-Chain transactions.
type feeConfig struct {
	Weights                  [4]uint64 `json:"weights"` // bandwidth, reads, writes, compute
	MaxCapacity              uint64    `json:"maxCapacity"`
	MaxPerSecond             uint64    `json:"maxPerSecond"`
	TargetPerSecond          uint64    `json:"targetPerSecond"`
	MinPrice                 uint64    `json:"minPrice"`
	ExcessConversionConstant uint64    `json:"excessConversionConstant"`
}

// validatorFeeConfig is fee.Config: the continuous fee of L1 validators.
type validatorFeeConfig struct {
	Capacity                 uint64 `json:"capacity"`
	Target                   uint64 `json:"target"`
	MinPrice                 uint64 `json:"minPrice"`
	ExcessConversionConstant uint64 `json:"excessConversionConstant"`
}

var (
	localFeeConfig = feeConfig{Weights: [4]uint64{1, 1_000, 1_000, 4}, MaxCapacity: 1_000_000, MaxPerSecond: 100_000,
		TargetPerSecond: 50_000, MinPrice: 1, ExcessConversionConstant: 2_164_043}
	localValidatorFeeConfig = validatorFeeConfig{Capacity: 20_000, Target: 10_000, MinPrice: 1, ExcessConversionConstant: 865_617}
)

// feeMethods answers getFeeConfig and getValidatorFeeConfig with the
// devnet's parameters, getFeeState and getValidatorFeeState with its fee
// state (idleFeeState), and getProposedHeight with its P-Chain height; all
// take no arguments.
func feeMethods(w *gen.World) map[string]jsonrpc.Method {
	constant := func(v any) jsonrpc.Method {
		return func(context.Context, json.RawMessage) (any, error) { return v, nil }
	}
	tip := w.PBlocks()[len(w.PBlocks())-1]
	fees, vfees, err := idleFeeState(tip)
	validatorFees := constant(vfees)
	if err != nil {
		validatorFees = func(context.Context, json.RawMessage) (any, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeServer, Message: "platform.getValidatorFeeState: " + err.Error()}
		}
	}
	return map[string]jsonrpc.Method{
		"platform.getFeeConfig":          constant(localFeeConfig),
		"platform.getValidatorFeeConfig": constant(localValidatorFeeConfig),
		"platform.getFeeState":           constant(fees),
		"platform.getValidatorFeeState":  validatorFees,
		// The devnet is one node accepting no block now: no block is in
		// its proposervm's window of recently accepted blocks, so the
		// minimum height it proposes at is its P-Chain height.
		"platform.getProposedHeight": constant(heightReply{Height: strconv.FormatUint(tip.Height, 10)}),
	}
}

// heightReply is avalanchego's api.GetHeightResponse.
type heightReply struct {
	Height string `json:"height"`
}

// feeState is platformvm's GetFeeStateReply: gas.State, the price and the
// chain time.
type feeState struct {
	Capacity uint64    `json:"capacity"`
	Excess   uint64    `json:"excess"`
	Price    uint64    `json:"price"`
	Time     time.Time `json:"timestamp"`
}

// validatorFeeState is platformvm's GetValidatorFeeStateReply.
type validatorFeeState struct {
	Excess uint64    `json:"excess"`
	Price  uint64    `json:"price"`
	Time   time.Time `json:"timestamp"`
}

// idleFeeState is the devnet's fee state after tip, its last P-Chain block:
// the devnet models no gas its transactions consume, so its dynamic fee
// state is an idle chain's, the capacity at its maximum and no excess,
// and the price (gas.CalculatePrice of no excess) the minimum. Its L1
// validators' excess only grows while more of them are active than the
// target; the devnet's are fewer, so it is 0 and the price the minimum
// too, which it says it cannot model otherwise. The time is the chain
// time, tip's.
func idleFeeState(tip *gen.Block) (feeState, validatorFeeState, error) {
	at := time.Unix(tip.Time, 0).UTC()
	fees := feeState{Capacity: localFeeConfig.MaxCapacity, Excess: 0, Price: localFeeConfig.MinPrice, Time: at}
	if uint64(tip.ActiveL1Validators) > localValidatorFeeConfig.Target {
		return fees, validatorFeeState{}, fmt.Errorf("the devnet's %d active L1 validators exceed the fee target (%d): their fee excess is not modelled",
			tip.ActiveL1Validators, localValidatorFeeConfig.Target)
	}
	return fees, validatorFeeState{Excess: 0, Price: localValidatorFeeConfig.MinPrice, Time: at}, nil
}

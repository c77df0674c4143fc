package warpmsg

import "errors"

// Validator is one validator of a subnet as a signature source reports it (the
// aggregator's Source in local/api/warp).
type Validator struct {
	NodeID [ShortIDLen]byte
	Weight uint64
	// PublicKey is the 48-byte compressed BLS key; nil if the validator has
	// none.
	PublicKey []byte
}

// Errors a signature source wraps when asked for a validator set it cannot
// give.
var (
	// ErrUnknownSubnet: the subnet does not exist.
	ErrUnknownSubnet = errors.New("warp: unknown subnet")
	// ErrUnknownHeight: the P-chain has not reached the height.
	ErrUnknownHeight = errors.New("warp: unknown P-chain height")
	// ErrL1MessageNotFound: no P-chain L1 message is known for a
	// justification or a transaction hash.
	ErrL1MessageNotFound = errors.New("warp: L1 message not found")
)

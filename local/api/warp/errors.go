package warp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// Errors of Aggregate. Each is wrapped in an error whose text is safe to show
// a client; answerOf maps them to HTTP statuses.
var (
	// ErrInvalidRequest: a field of the request is malformed or out of range
	// (400, message array).
	ErrInvalidRequest = errors.New("warp: invalid request")
	// ErrUnknownNetwork: Source.Network does not know the name (404).
	ErrUnknownNetwork = errors.New("warp: unknown network")
	// ErrNetworkMismatch: the message's network id is not the request's (400).
	ErrNetworkMismatch = errors.New("warp: message network id mismatch")
	// ErrUnknownChain: Source.SubnetOf does not know the source chain (404).
	ErrUnknownChain = errors.New("warp: unknown source chain")
	// ErrUnknownSubnet: the signing subnet does not exist. Source.Validators
	// returns an error wrapping it for a subnet it does not know (404).
	ErrUnknownSubnet = warpmsg.ErrUnknownSubnet
	// ErrUnknownHeight: Source.Validators returns an error wrapping it for a
	// P-chain height it has not reached (400).
	ErrUnknownHeight = warpmsg.ErrUnknownHeight
	// ErrL1MessageNotFound: Source.L1Message knows no message for the
	// justification or transaction hash (404).
	ErrL1MessageNotFound = warpmsg.ErrL1MessageNotFound
	// ErrQuorumNotReached: the validators that signed hold less than the
	// quorum; the error is a *QuorumError (400).
	ErrQuorumNotReached = errors.New("warp: quorum not reached")
)

// requestError is an Aggregate failure with client-facing messages.
type requestError struct {
	kind error
	msgs []string
}

func (e *requestError) Error() string { return strings.Join(e.msgs, "; ") }
func (e *requestError) Unwrap() error { return e.kind }

func reqErr(kind error, format string, args ...any) error {
	return &requestError{kind: kind, msgs: []string{fmt.Sprintf(format, args...)}}
}

// QuorumError reports signatures that stayed below the quorum. Its text gives
// the percentage of the subnet's weight that signed.
type QuorumError struct {
	SubnetID         [warpmsg.IDLen]byte
	SignedWeight     uint64
	TotalWeight      uint64
	QuorumPercentage uint64
}

func (e *QuorumError) Error() string {
	return fmt.Sprintf("Failed to reach quorum: validators holding %s%% of the weight of subnet %s signed; %d%% required",
		percentOf(e.SignedWeight, e.TotalWeight), avax.CB58Encode(e.SubnetID[:]), e.QuorumPercentage)
}

// Unwrap makes errors.Is(err, ErrQuorumNotReached) hold.
func (e *QuorumError) Unwrap() error { return ErrQuorumNotReached }

// answerOf maps an Aggregate error to its answer: its HTTP status and
// client messages, an array for a validation error. It is the only place
// that chooses statuses.
func answerOf(err error) *apireq.Error {
	var re *requestError
	var qe *QuorumError
	switch {
	case errors.As(err, &qe):
		return &apireq.Error{Status: http.StatusBadRequest, Msgs: []string{qe.Error()}}
	case errors.As(err, &re):
		switch re.kind {
		case ErrInvalidRequest:
			return &apireq.Error{Status: http.StatusBadRequest, Msgs: re.msgs, List: true}
		case ErrNetworkMismatch, ErrUnknownHeight:
			return &apireq.Error{Status: http.StatusBadRequest, Msgs: re.msgs}
		case ErrUnknownNetwork, ErrUnknownChain, ErrUnknownSubnet, ErrL1MessageNotFound:
			return &apireq.Error{Status: http.StatusNotFound, Msgs: re.msgs}
		}
	case errors.Is(err, context.DeadlineExceeded):
		return &apireq.Error{Status: http.StatusGatewayTimeout, Msgs: []string{"Signature aggregation timed out"}}
	case errors.Is(err, context.Canceled):
		return &apireq.Error{Status: http.StatusServiceUnavailable, Msgs: []string{"Signature aggregation was canceled"}}
	}
	return &apireq.Error{Status: http.StatusInternalServerError, Msgs: []string{"Failed to aggregate signatures"}, Err: err}
}

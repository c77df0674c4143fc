package warp

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// Handlers returns the Data API's signature-aggregator routes, keyed by
// operation id:
//
//	POST /v1/signatureAggregator/{network}/aggregateSignatures          "aggregateSignatures"
//	GET  /v1/signatureAggregator/{network}/aggregateSignatures/{txHash} "getAggregatedSignatures"
//
// They read their parameters from the values the catalogue validated (body
// fields included: hex strings, integers within 0..100, the quorum rule) and
// check only the ids the catalogue does not parse. Both answer 201
// {"signedMessage": hex} and Data API error bodies otherwise.
func (a *Aggregator) Handlers() map[string]catalog.Handler {
	svc := apireq.Service{Classify: answerOf}
	return map[string]catalog.Handler{
		"aggregateSignatures":     svc.Handle("aggregateSignatures", a.serveAggregate),
		"getAggregatedSignatures": svc.Handle("getAggregatedSignatures", a.serveGet),
	}
}

func (a *Aggregator) serveAggregate(q *apireq.Req) (any, error) {
	req, msgs := requestOf(q.Q)
	if msgs != nil {
		return nil, apireq.BadRequest(msgs...)
	}
	return signedAnswer(a.Aggregate(q.Context(), req))
}

func (a *Aggregator) serveGet(q *apireq.Req) (any, error) {
	txHash, err := parseID(q.Get("txHash"))
	if err != nil {
		return nil, apireq.BadRequest("txHash must be a cb58 or hex encoded transaction hash")
	}
	return signedAnswer(a.Aggregate(q.Context(), Request{Network: q.Get("network"), Justification: txHash[:]}))
}

// signedAnswer is a 201 {"signedMessage": hex} of signed, or err.
func signedAnswer(signed []byte, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return &apireq.Answer{Status: http.StatusCreated, Body: struct {
		SignedMessage string `json:"signedMessage"`
	}{hex.EncodeToString(signed)}}, nil
}

// requestOf builds an aggregateSignatures Request from the catalogue's
// values (glacier.json's SignatureAggregatorRequest). Only signingSubnetId needs a check here: the catalogue
// knows it as a string, the aggregator needs a 32-byte id.
func requestOf(v catalog.Values) (Request, []string) {
	req := Request{Network: v["network"]}
	// The catalogue has checked that both are hex.
	if b, _ := decodeHex(v["message"]); len(b) > 0 {
		req.Message = b
	}
	if b, _ := decodeHex(v["justification"]); len(b) > 0 {
		req.Justification = b
	}
	if s := v["signingSubnetId"]; s != "" {
		id, err := parseID(s)
		if err != nil {
			return req, []string{"signingSubnetId must be a hex or cb58 encoded subnet ID"}
		}
		req.SigningSubnetID = id
	}
	req.QuorumPercentage, _ = strconv.ParseUint(v["quorumPercentage"], 10, 64)
	req.QuorumPercentageBuffer, _ = strconv.ParseUint(v["quorumPercentageBuffer"], 10, 64)
	req.PChainHeight, _ = strconv.ParseUint(v["pChainHeight"], 10, 64)
	return req, nil
}

// parseID reads a 32-byte id written as hex (0x optional) or cb58.
func parseID(s string) ([warpmsg.IDLen]byte, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(h) == 2*warpmsg.IDLen {
		var id [warpmsg.IDLen]byte
		if _, err := hex.Decode(id[:], []byte(h)); err == nil {
			return id, nil
		}
	}
	return avax.ParseID(s)
}

// decodeHex reads hex with an optional 0x prefix.
func decodeHex(s string) ([]byte, error) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	return hex.DecodeString(s)
}

package warp

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"

	"github.com/avaedge/avaedge/apierror"
)

// maxBodyBytes bounds an aggregateSignatures body: a hex message at
// avalanchego's 2 MiB p2p limit would not fit, but no Warp message nears it.
const maxBodyBytes = 1 << 20

// Handlers returns the Data API's signature-aggregator routes, keyed by
// operation id. The caller mounts them with the path values they read:
//
//	POST /v1/signatureAggregator/{network}/aggregateSignatures          "aggregateSignatures"
//	GET  /v1/signatureAggregator/{network}/aggregateSignatures/{txHash} "getAggregatedSignatures"
//
// Both answer 201 {"signedMessage": hex} and Data API error bodies otherwise.
func (a *Aggregator) Handlers() map[string]http.Handler {
	return map[string]http.Handler{
		"aggregateSignatures":     http.HandlerFunc(a.serveAggregate),
		"getAggregatedSignatures": http.HandlerFunc(a.serveGet),
	}
}

func (a *Aggregator) serveAggregate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		apierror.Write(w, http.StatusNotFound, "Cannot "+r.Method+" "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			apierror.Write(w, http.StatusRequestEntityTooLarge, "request entity too large")
			return
		}
		apierror.Write(w, http.StatusBadRequest, "could not read the request body")
		return
	}
	req, msgs := parseBody(body)
	if msgs != nil {
		apierror.WriteList(w, http.StatusBadRequest, msgs...)
		return
	}
	req.Network = r.PathValue("network")
	signed, err := a.Aggregate(r.Context(), req)
	respond(w, signed, err)
}

func (a *Aggregator) serveGet(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierror.Write(w, http.StatusNotFound, "Cannot "+r.Method+" "+r.URL.Path)
		return
	}
	txHash, err := parseID(r.PathValue("txHash"))
	if err != nil {
		apierror.WriteList(w, http.StatusBadRequest, "txHash must be a cb58 or hex encoded transaction hash")
		return
	}
	signed, err := a.Aggregate(r.Context(), Request{Network: r.PathValue("network"), Justification: txHash[:]})
	respond(w, signed, err)
}

func respond(w http.ResponseWriter, signed []byte, err error) {
	if err != nil {
		status, msgs, list := statusOf(err)
		if list {
			apierror.WriteList(w, status, msgs...)
		} else {
			apierror.Write(w, status, msgs[0])
		}
		return
	}
	body, _ := json.Marshal(struct {
		SignedMessage string `json:"signedMessage"`
	}{hex.EncodeToString(signed)}) // cannot fail: one string
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusCreated)
	w.Write(body)
}

// parseBody reads an aggregateSignatures body (glacier.json's
// SignatureAggregatorRequest; docs/facts.md, section 2) into a Request
// without its Network. It returns NestJS-style validation messages, nil when
// the body is valid. Unknown fields are ignored; null means absent.
func parseBody(body []byte) (Request, []string) {
	var req Request
	fields := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
			return req, []string{"body must be a JSON object"}
		}
	}
	var msgs []string
	bad := func(m string) { msgs = append(msgs, m) }

	if s, ok := stringField(fields, "message", bad); ok {
		if b, err := decodeHex(s); err != nil {
			bad("message must be a hexadecimal string")
		} else if len(b) > 0 {
			req.Message = b
		}
	}
	if s, ok := stringField(fields, "justification", bad); ok {
		if b, err := decodeHex(s); err != nil {
			bad("justification must be a hexadecimal string")
		} else if len(b) > 0 {
			req.Justification = b
		}
	}
	if s, ok := stringField(fields, "signingSubnetId", bad); ok && s != "" {
		if id, err := parseID(s); err != nil {
			bad("signingSubnetId must be a hex or cb58 encoded subnet ID")
		} else {
			req.SigningSubnetID = id
		}
	}
	quorum, qok := intField(fields, "quorumPercentage", 100, bad)
	buffer, bok := intField(fields, "quorumPercentageBuffer", 100, bad)
	req.PChainHeight, _ = intField(fields, "pChainHeight", math.MaxUint64, bad)
	req.QuorumPercentage, req.QuorumPercentageBuffer = quorum, buffer
	if qok && bok && cmp.Or(quorum, DefaultQuorumPercentage)+buffer > 100 {
		bad("quorumPercentage + quorumPercentageBuffer must not be greater than 100")
	}
	if msgs == nil && req.Message == nil && req.Justification == nil {
		bad("Must provide either message or justification")
	}
	return req, msgs
}

// stringField returns the string value of fields[name]; ok is false when the
// field is absent, null or not a string (reported through bad).
func stringField(fields map[string]json.RawMessage, name string, bad func(string)) (string, bool) {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		bad(name + " must be a string")
		return "", false
	}
	return s, true
}

// intField returns the integer value of fields[name] in 0..max; ok is false
// when the field is absent, null or invalid (reported through bad).
func intField(fields map[string]json.RawMessage, name string, max uint64, bad func(string)) (uint64, bool) {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return 0, true
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil || len(raw) == 0 || raw[0] == '"' {
		bad(name + " must be a number conforming to the specified constraints")
		return 0, false
	}
	if v, err := strconv.ParseUint(n.String(), 10, 64); err == nil {
		if v > max {
			bad(name + " must not be greater than " + strconv.FormatUint(max, 10))
			return 0, false
		}
		return v, true
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		bad(name + " must be a number conforming to the specified constraints")
	case f < 0:
		bad(name + " must not be less than 0")
	case f != math.Trunc(f):
		bad(name + " must be an integer number")
	case f >= float64(max) && max == math.MaxUint64, f > float64(max):
		bad(name + " must not be greater than " + strconv.FormatUint(max, 10))
	default:
		return uint64(f), true
	}
	return 0, false
}

package evm

import (
	"bytes"
	"encoding/json"
	"strings"
)

// element is what Handler reads of one element of a JSON-RPC body before
// go-ethereum serves it: the method go-ethereum would dispatch it to, and
// the id it would echo.
type element struct {
	// ID is the raw value of the element's "id" member, nil when it has
	// none.
	ID json.RawMessage
	// Method is the string value of the element's "method" member.
	Method string
	// Ambiguous is set when the element names its method in a way parsers
	// disagree on: more than one "method" member, a member whose name is
	// "method" in another case ("Method", "METHOD": encoding/json matches
	// it, go-ethereum does not), or a "method" that is not a string
	// (go-ethereum keeps the string of an earlier member, or none;
	// encoding/json fails the whole body).
	Ambiguous bool
}

// parseCalls reads body as go-ethereum's rpc package reads an HTTP request
// (rpc/json.go parseMessage and fillMessage, v1.17): a body that is not
// valid JSON is no call (go-ethereum answers -32700 and runs nothing); a
// body whose first non-space byte is '[' is a batch of elements, anything
// else one element; an element that is not an object has no method. Member
// names are compared after unescaping ("met\u0068od" is "method"), exactly,
// and the last "id" member wins, as go-ethereum does.
func parseCalls(body []byte) (calls []element, batch bool) {
	if !json.Valid(body) {
		return nil, false
	}
	t := bytes.TrimLeft(body, " \t\r\n")
	if len(t) == 0 || t[0] != '[' {
		return []element{parseCall(t)}, false
	}
	var elems []json.RawMessage
	if json.Unmarshal(t, &elems) != nil {
		return nil, true // not reached: body is valid JSON
	}
	calls = make([]element, len(elems))
	for i, e := range elems {
		calls[i] = parseCall(e)
	}
	return calls, true
}

// parseCall reads one element, which is valid JSON.
func parseCall(elem []byte) element {
	var c element
	dec := json.NewDecoder(bytes.NewReader(elem))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return c
	}
	methods := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return element{Ambiguous: true}
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return element{Ambiguous: true}
		}
		switch {
		case key == "id":
			c.ID = v
		case key == "method":
			methods++
			if json.Unmarshal(v, &c.Method) != nil || v[0] != '"' {
				c.Ambiguous = true
			}
		case strings.EqualFold(key, "method"):
			c.Ambiguous = true
		}
	}
	if methods > 1 {
		c.Ambiguous = true
	}
	return c
}

// writeMethods are the methods that put a transaction in the pool. Only
// eth_sendRawTransaction and eth_sendRawTransactionSync can succeed on the
// dev chain (it holds no keys), but every one is counted.
var writeMethods = map[string]bool{
	"eth_sendRawTransaction":     true,
	"eth_sendRawTransactionSync": true,
	"eth_sendTransaction":        true,
	"eth_resend":                 true,
}

// countCalls returns how many calls send a transaction and how many name
// their method ambiguously.
func countCalls(calls []element) (writes, ambiguous int) {
	for _, c := range calls {
		switch {
		case c.Ambiguous:
			ambiguous++
		case writeMethods[c.Method]:
			writes++
		}
	}
	return writes, ambiguous
}

package evm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"
)

// request is what Handler tells the methods it guards about the HTTP
// request they serve.
type request struct {
	// client names the sender, as the edge counts it.
	client string
	// writes is how many transactions the request may still send: what
	// Handler counted in it and took from the client's write allowance.
	writes atomic.Int64
	// budgeted says the request's calls that run the EVM share budget, the
	// time (ns) they may still run (Options.CallBudget); without it (the
	// in-process Client) each has the call timeout.
	budgeted bool
	budget   atomic.Int64
}

// errBudget refuses a call of a request whose calls have spent
// Options.CallBudget.
func errBudget(budget time.Duration) error {
	return &limitError{"execution budget exhausted: the calls of one request run the EVM at most " + budget.String() + " in all"}
}

type requestKey struct{}

func withRequest(ctx context.Context, r *request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

func requestOf(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// errUncounted refuses a transaction that Handler did not count in its
// request: the guard behind the count, never met while Handler reads a
// body as go-ethereum does.
var errUncounted = &limitError{"transaction not counted against the client's write allowance"}

// limitError is a refusal with EIP-1474's -32005, limit exceeded.
type limitError struct{ msg string }

func (e *limitError) Error() string  { return e.msg }
func (e *limitError) ErrorCode() int { return -32005 }

// invalidParamsError is go-ethereum's answer to an argument that does not
// decode (rpc/json.go: -32602, "invalid argument N: ...").
type invalidParamsError struct{ msg string }

func (e *invalidParamsError) Error() string  { return e.msg }
func (e *invalidParamsError) ErrorCode() int { return -32602 }

// method is one of go-ethereum's eth methods, called through reflection
// with arguments decoded as go-ethereum's rpc package decodes them.
type method struct {
	fn     reflect.Value  // bound to its service; takes ctx first
	params []reflect.Type // after ctx
}

// decode decodes raw (one per parameter, nil for an optional one left out)
// into the method's parameter types, as rpc/json.go parseArgumentArray does.
func (m method) decode(raw []*json.RawMessage) ([]reflect.Value, error) {
	vals := make([]reflect.Value, len(m.params))
	for i, t := range m.params {
		if raw[i] == nil {
			vals[i] = reflect.Zero(t)
			continue
		}
		v := reflect.New(t)
		var err error
		if u, ok := v.Interface().(json.Unmarshaler); ok && string(*raw[i]) != "null" {
			err = u.UnmarshalJSON(*raw[i])
		} else {
			err = json.Unmarshal(*raw[i], v.Interface())
		}
		if err != nil {
			return nil, &invalidParamsError{fmt.Sprintf("invalid argument %d: %v", i, err)}
		}
		vals[i] = v.Elem()
	}
	return vals, nil
}

// call calls the method; its results are a value and an error.
func (m method) call(ctx context.Context, args []reflect.Value) (any, error) {
	out := m.fn.Call(append([]reflect.Value{reflect.ValueOf(ctx)}, args...))
	if err, _ := out[1].Interface().(error); err != nil {
		return nil, err
	}
	return out[0].Interface(), nil
}

// What a guarded method does.
const (
	runsEVM = 1 << iota // takes a slot of its client and is cut off at the call timeout
	sends               // spends one of its request's counted writes
)

// guard runs the methods of guardedAPI. It is safe for concurrent use.
type guard struct {
	timeout time.Duration
	budget  time.Duration // Options.CallBudget, for the refusal's words
	slots   *callSlots
	methods map[string]method // by Go method name
}

// run decodes raw for m and calls it under what kind says.
func (g *guard) run(ctx context.Context, name string, kind int, raw ...*json.RawMessage) (any, error) {
	req := requestOf(ctx)
	if req == nil {
		req = &request{} // not through Handler: no client, no writes
	}
	m := g.methods[name]
	args, err := m.decode(raw)
	if err != nil {
		return nil, err
	}
	if kind&sends != 0 && req.writes.Add(-1) < 0 {
		return nil, errUncounted
	}
	if kind&runsEVM == 0 {
		return m.call(ctx, args)
	}
	if req.budgeted && req.budget.Load() <= 0 {
		return nil, errBudget(g.budget)
	}
	release, err := g.slots.acquire(ctx, req.client, g.timeout)
	if err != nil {
		return nil, err
	}
	defer release()
	timeout := g.timeout
	if req.budgeted {
		// Read again: another call of the request may have run meanwhile.
		left := time.Duration(req.budget.Load())
		if left <= 0 {
			return nil, errBudget(g.budget)
		}
		timeout = min(timeout, left)
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := m.call(cctx, args)
	req.budget.Add(-int64(time.Since(start)))
	if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		// go-ethereum's own words for eth_call; eth_estimateGas and
		// eth_createAccessList stop at the deadline with a partial answer
		// or "context deadline exceeded".
		return nil, fmt.Errorf("execution aborted (timeout = %v)", timeout.Round(time.Millisecond))
	}
	return res, err
}

// guardedAPI serves, in place of go-ethereum's own, the eth methods that run
// the EVM (each bounded by the call timeout and its client's slots) or send
// a transaction (each spending one write Handler counted). Every method has
// the parameters of go-ethereum's, as raw JSON: required ones as values,
// optional ones as pointers, so go-ethereum's rpc package checks their
// number exactly as before; newGuard checks the match.
type guardedAPI struct{ g *guard }

// Call runs eth_call.
func (a *guardedAPI) Call(ctx context.Context, args json.RawMessage, block, state, blockOverrides *json.RawMessage) (any, error) {
	return a.g.run(ctx, "Call", runsEVM, &args, block, state, blockOverrides)
}

// EstimateGas runs eth_estimateGas.
func (a *guardedAPI) EstimateGas(ctx context.Context, args json.RawMessage, block, state, blockOverrides *json.RawMessage) (any, error) {
	return a.g.run(ctx, "EstimateGas", runsEVM, &args, block, state, blockOverrides)
}

// CreateAccessList runs eth_createAccessList.
func (a *guardedAPI) CreateAccessList(ctx context.Context, args json.RawMessage, block, state *json.RawMessage) (any, error) {
	return a.g.run(ctx, "CreateAccessList", runsEVM, &args, block, state)
}

// SimulateV1 runs eth_simulateV1.
func (a *guardedAPI) SimulateV1(ctx context.Context, opts json.RawMessage, block *json.RawMessage) (any, error) {
	return a.g.run(ctx, "SimulateV1", runsEVM, &opts, block)
}

// FillTransaction runs eth_fillTransaction (it estimates gas).
func (a *guardedAPI) FillTransaction(ctx context.Context, args json.RawMessage) (any, error) {
	return a.g.run(ctx, "FillTransaction", runsEVM, &args)
}

// Resend runs eth_resend (it estimates gas, then needs a key the dev chain
// does not hold).
func (a *guardedAPI) Resend(ctx context.Context, args json.RawMessage, gasPrice, gasLimit *json.RawMessage) (any, error) {
	return a.g.run(ctx, "Resend", runsEVM|sends, &args, gasPrice, gasLimit)
}

// SendTransaction runs eth_sendTransaction (it needs a key the dev chain
// does not hold).
func (a *guardedAPI) SendTransaction(ctx context.Context, args json.RawMessage) (any, error) {
	return a.g.run(ctx, "SendTransaction", runsEVM|sends, &args)
}

// SendRawTransaction runs eth_sendRawTransaction.
func (a *guardedAPI) SendRawTransaction(ctx context.Context, input json.RawMessage) (any, error) {
	return a.g.run(ctx, "SendRawTransaction", sends, &input)
}

// SendRawTransactionSync runs eth_sendRawTransactionSync.
func (a *guardedAPI) SendRawTransactionSync(ctx context.Context, input json.RawMessage, timeoutMs *json.RawMessage) (any, error) {
	return a.g.run(ctx, "SendRawTransactionSync", sends, &input, timeoutMs)
}

// newGuard finds go-ethereum's method for each of guardedAPI's among
// services and checks that their parameters match.
func newGuard(services []any, timeout, budget time.Duration, slots *callSlots) (*guardedAPI, error) {
	g := &guard{timeout: timeout, budget: budget, slots: slots, methods: map[string]method{}}
	api := &guardedAPI{g: g}
	ctxType := reflect.TypeFor[context.Context]()
	wt := reflect.TypeOf(api)
	for i := range wt.NumMethod() {
		wm := wt.Method(i)
		var found bool
		for _, svc := range services {
			fn := reflect.ValueOf(svc).MethodByName(wm.Name)
			if !fn.IsValid() {
				continue
			}
			ft, want := fn.Type(), wm.Type // want has the receiver first, then ctx
			ok := ft.NumIn() == want.NumIn()-1 && ft.NumIn() > 0 && ft.In(0) == ctxType && ft.NumOut() == 2 && ft.Out(1) == reflect.TypeFor[error]()
			m := method{fn: fn}
			for j := 1; ok && j < ft.NumIn(); j++ {
				ok = (ft.In(j).Kind() == reflect.Pointer) == (want.In(j+1).Kind() == reflect.Pointer)
				m.params = append(m.params, ft.In(j))
			}
			if !ok {
				return nil, fmt.Errorf("evm: go-ethereum's eth %s has the signature %s, which the guard does not match", wm.Name, ft)
			}
			g.methods[wm.Name], found = m, true
			break
		}
		if !found {
			return nil, fmt.Errorf("evm: go-ethereum serves no eth %s to guard", wm.Name)
		}
	}
	return api, nil
}

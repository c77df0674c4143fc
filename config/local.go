package config

// DefaultWritesPerMinute is LocalEVM.WritesPerMinute's default.
const DefaultWritesPerMinute = 60

// LocalEVM bounds what clients may do on the embedded EVM dev chain
// (/ext/bc/C/rpc in local mode). Every call is metered like any other by the
// edge; these limits come on top.
type LocalEVM struct {
	// Debug serves go-ethereum's debug namespace (debug_trace*,
	// debug_setHead, debug_standardTraceBlockToFile, ...) to clients. Its
	// methods rewind the chain under the indexer, write files and burn CPU,
	// so the default false answers them "method not found". The indexer's
	// own tracing does not need it.
	Debug bool `yaml:"debug"`
	// WritesPerMinute bounds the transactions one client sends
	// (eth_sendRawTransaction, eth_sendTransaction) per minute, with bursts
	// of as many. A client is its address (after trusted proxies) and, when
	// it sends one, its API key: each has its own allowance. Zero means
	// DefaultWritesPerMinute (60).
	WritesPerMinute int `yaml:"writes_per_minute"`
}

// validate fills LocalEVM's defaults and reports bad values through bad.
func (e *LocalEVM) validate(bad func(field, format string, args ...any)) {
	if e.WritesPerMinute < 0 {
		bad("local.evm.writes_per_minute", "must not be negative")
	}
	if e.WritesPerMinute == 0 {
		e.WritesPerMinute = DefaultWritesPerMinute
	}
}

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
	// DefaultWritesPerMinute (60). A client is counted by IPv4 address or
	// IPv6 /64.
	WritesPerMinute int `yaml:"writes_per_minute"`
	// CallGasCap bounds the gas of one call that runs the EVM without a
	// transaction (eth_call, eth_estimateGas, eth_createAccessList,
	// eth_simulateV1 in all, eth_fillTransaction). Zero means 25,000,000.
	CallGasCap uint64 `yaml:"call_gas_cap"`
	// CallTimeout bounds the time of one such call, which then answers
	// "execution aborted (timeout = 1s)". Zero means 1s.
	CallTimeout Duration `yaml:"call_timeout"`
	// CallBudget bounds the time all such calls of one request run
	// together: a batch's calls share it, each cut off at CallTimeout or at
	// what is left, and the calls after it is spent are refused with
	// -32005, so a batch buys no more of the machine than one call. Zero
	// means CallTimeout.
	CallBudget Duration `yaml:"call_budget"`
	// CallsPerClient bounds the calls that run the EVM at once for one
	// client across all the dev chains (C, devsubnet, devl1). A client is
	// its API key, or without one its address (IPv6 by /64, after trusted
	// proxies; a key nobody issued counts as its address). A batch's calls
	// run one after another. A call waits up to CallTimeout for its turn,
	// then is refused with -32005. Zero means 2.
	CallsPerClient int `yaml:"calls_per_client"`
	// FiltersPerClient and MaxFilters bound the filters clients install
	// (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter),
	// per client (as CallsPerClient counts them) and in all, across all the
	// dev chains. A client past its share is refused "exceed max filters
	// per client"; past MaxFilters a new filter evicts the one idle the
	// longest, so a full table locks no newcomer out. A filter lives until
	// it is uninstalled or not polled for 5 minutes (go-ethereum's
	// timeout). Zero means 16 and 1024.
	FiltersPerClient int `yaml:"filters_per_client"`
	MaxFilters       int `yaml:"max_filters"`
	// ResetDevChains starts the dev chains again from their seed: with a
	// data directory, they keep what was done on them across restarts
	// (devchains/<chain id>/), and this removes it at start, logging that it
	// did (the EVM index drops the blocks the chains no longer have). Env
	// AVAEDGE_RESET_DEV_CHAINS (true or false).
	ResetDevChains bool `yaml:"reset_dev_chains"`
	// badReset is an AVAEDGE_RESET_DEV_CHAINS that is not a boolean, for
	// validate to reject.
	badReset string
}

// validate reports LocalEVM's bad values through bad.
func (e *LocalEVM) validate(bad func(field, format string, args ...any)) {
	nonNegative(bad, "local.evm.", []bound{
		{"writes_per_minute", int64(e.WritesPerMinute)},
		{"call_timeout", int64(e.CallTimeout)},
		{"call_budget", int64(e.CallBudget)},
		{"calls_per_client", int64(e.CallsPerClient)},
		{"filters_per_client", int64(e.FiltersPerClient)},
		{"max_filters", int64(e.MaxFilters)},
	})
	if e.badReset != "" {
		bad("local.evm.reset_dev_chains", "AVAEDGE_RESET_DEV_CHAINS=%q is not true or false", e.badReset)
	}
}

// bound is a numeric field's name and value, for nonNegative.
type bound struct {
	name string
	v    int64
}

// nonNegative reports each of fs that is negative through bad, its name
// after prefix.
func nonNegative(bad func(field, format string, args ...any), prefix string, fs []bound) {
	for _, f := range fs {
		if f.v < 0 {
			bad(prefix+f.name, "must not be negative")
		}
	}
}

// defaults fills LocalEVM's defaults. The zero values of the other fields
// are the dev chain's documented defaults (evm.Options).
func (e *LocalEVM) defaults() {
	if e.WritesPerMinute == 0 {
		e.WritesPerMinute = DefaultWritesPerMinute
	}
}

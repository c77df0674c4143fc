package e2e

import "github.com/avaedge/avaedge/catalog"

// route is what the suite needs of a catalogue entry.
type route struct {
	Name     string
	Service  string // "data", "metrics" or "node"
	Method   string
	Path     string // REST pattern path, or the JSON-RPC endpoint's canonical path
	Endpoint string // JSON-RPC endpoint ("info", "avm", "evm"); empty for REST
	Cache    string // cache class: immutable, medium, short, metrics or never
}

// catalogue returns avaedge's route catalogue. This is the suite's only use
// of the package that holds the catalogue, so moving it changes this file
// alone.
func catalogue() []route {
	var out []route
	for _, r := range catalog.Catalogue() {
		out = append(out, route{Name: r.Name, Service: string(r.Service), Method: r.Method, Path: r.Path, Endpoint: r.Endpoint, Cache: string(r.Cache)})
	}
	return out
}

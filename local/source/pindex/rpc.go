package pindex

// Endpoint paths of the avalanchego APIs the index reads.
const (
	pathP    = "/ext/bc/P"
	pathX    = "/ext/bc/X"
	pathInfo = "/ext/info"
)

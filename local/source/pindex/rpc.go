package pindex

// Endpoint paths of the avalanchego APIs the index reads.
const (
	pathP    = "/ext/bc/P"
	pathX    = "/ext/bc/X"
	pathInfo = "/ext/info"
)

// maxAnswer bounds one answer of the node, which the index reads whole into
// memory before decoding it.
const maxAnswer = 64 << 20

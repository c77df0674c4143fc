package pindex

// maxAnswer bounds one answer of the node, which the index reads whole into
// memory before decoding it.
const maxAnswer = 64 << 20

// Package acp118 asks avalanchego validators for Warp signatures over the
// p2p protocol (ACP-118), without linking avalanchego: a TLS connection with
// a self-generated staking certificate, the Handshake and PeerList exchange
// (network/peer), then an AppRequest carrying an sdk.SignatureRequest on the
// message's source chain, answered by an AppResponse carrying an
// sdk.SignatureResponse (network/p2p/acp118). Messages are the subset of
// avalanchego's proto/p2p and proto/sdk a request needs, hand-encoded,
// length-prefixed, zstd-decompressed when the node compresses them.
package acp118

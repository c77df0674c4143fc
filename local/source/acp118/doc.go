// Package acp118 asks avalanchego validators for Warp signatures over the
// p2p protocol (ACP-118), without linking avalanchego: a TLS connection with
// a self-generated staking certificate, the Handshake and PeerList exchange
// (network/peer), then an AppRequest carrying an sdk.SignatureRequest on the
// message's source chain, answered by an AppResponse carrying an
// sdk.SignatureResponse (network/p2p/acp118). Messages are avalanchego's
// proto/p2p and proto/sdk, as Go code generated from those .proto files
// (pb/), length-prefixed, zstd-decompressed when the node compresses them.
package acp118

// The p2p messages are Go code generated from avalanchego's .proto files
// (proto/, copied; pb/, generated and committed, checked by TestGenerated).
// Regenerating needs protoc (apt install protobuf-compiler) and
// protoc-gen-go (go install google.golang.org/protobuf/cmd/protoc-gen-go,
// the version of go.mod's protobuf module).
//
//go:generate protoc -I proto --go_out=. --go_opt=module=github.com/avaedge/avaedge/local/source/acp118 avaedge/acp118/p2p.proto avaedge/acp118/sdk.proto

// Package warpmsg is the Avalanche Warp message codec (avalanchego
// vms/platformvm/warp, its payload and message packages): unsigned and signed
// messages, their payloads (Hash, AddressedCall), the P-chain's L1 messages,
// signer bitsets, and the validator a signature source reports. Sources build
// these messages and the signature aggregator (local/api/warp) parses them,
// so the codec lives below both.
//
// Every byte layout here is avalanchego's linear codec: big-endian integers, a
// u16 codec version 0 in front of each top-level value, a u32 type id in front
// of each interface value, and u32 length prefixes on slices. Every function
// is pure and safe for concurrent use.
package warpmsg

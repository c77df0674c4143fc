// Package warp serves the Data API's signature aggregator from a local world:
// it computes the canonical validator set of a signing subnet, asks that
// set's validators for BLS signatures and aggregates them with blst
// (avalanchego vms/platformvm/warp; the rules are in docs/facts.md, section
// 6). The messages it signs are parsed and built by local/vocab/warpmsg.
//
// The world is a Source (validator sets, signers, P-chain L1 messages). An
// Aggregator asks a set's validators in descending weight order, verifies
// each signature, caches it per (message id, public key), stops at
// quorumPercentage+quorumPercentageBuffer (falling back to the plain quorum),
// and verifies the aggregate before returning it.
//
// Statuses of the two routes (Handlers):
//
//	201  {"signedMessage": hex without 0x}
//	400  malformed body or field (message array); message network id is not
//	     the route's (nor one the Source also accepts there, MessageNetworks);
//	     pChainHeight not reached; quorum not reached (the message gives the
//	     percentage of weight that signed)
//	404  unknown network, source chain, signing subnet, or no L1 message for
//	     the justification / txHash
//	413  body over 1 MiB
//	500  the Source failed or gave a malformed validator key or L1 message
//	503/504  the request was canceled / timed out
package warp

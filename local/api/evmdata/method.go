package evmdata

import (
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// standardMethods names the selectors of the token standards' methods
// (ERC-20, ERC-721, ERC-1155): a fact of the standards, so a call to any of
// them is named without an ABI. Other calls carry only their selector.
var standardMethods = func() map[string]string {
	out := map[string]string{}
	for _, sig := range []string{
		"transfer(address,uint256)", "transferFrom(address,address,uint256)", "approve(address,uint256)",
		"safeTransferFrom(address,address,uint256)", "safeTransferFrom(address,address,uint256,bytes)",
		"setApprovalForAll(address,bool)",
		"safeTransferFrom(address,address,uint256,uint256,bytes)",
		"safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
	} {
		out[hexutil.Encode(crypto.Keccak256([]byte(sig))[:4])] = sig
	}
	return out
}()

// methodOf describes a transaction's call: a creation (no recipient), a
// plain transfer (no input) or a contract call with its selector (the
// input's first four bytes).
func methodOf(creation bool, selector []byte) method {
	switch {
	case creation:
		return method{CallType: "CONTRACT_CREATION", MethodName: "Contract Created"}
	case len(selector) == 0:
		return method{CallType: "NATIVE_TRANSFER", MethodName: "Native Transfer"}
	}
	m := method{CallType: "CONTRACT_CALL", MethodHash: hexutil.Encode(selector[:min(4, len(selector))])}
	m.MethodName = standardMethods[m.MethodHash]
	return m
}

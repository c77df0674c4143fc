package pindex

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The node's JSON encoding of blocks and transactions (encoding "json" of
// platform.getBlockByHeight and avm.getBlockByHeight) carries no type names:
// a transaction is its unsigned struct's fields. The decoders below read the
// union of every type's fields and classify a transaction by the fields it
// has (classifyP, classifyX).

// blockJSON is a P- or X-avanet.Chain block. P-avanet.Chain blocks have txs (standard,
// Banff proposal) or tx (Apricot proposal and atomic, Banff proposal's
// proposal tx); X-avanet.Chain blocks have txs.
type blockJSON struct {
	ID       string            `json:"id"`
	ParentID string            `json:"parentID"`
	Height   uint64            `json:"height"`
	Time     *uint64           `json:"time"`
	Txs      []json.RawMessage `json:"txs"`
	Tx       json.RawMessage   `json:"tx"`
}

// txJSON is a signed transaction.
type txJSON struct {
	ID       string          `json:"id"`
	Unsigned json.RawMessage `json:"unsignedTx"`
}

// ownerJSON is secp256k1fx.OutputOwners; addresses are "P-local1..." or
// "X-local1...".
type ownerJSON struct {
	Addresses []string `json:"addresses"`
	Locktime  uint64   `json:"locktime"`
	Threshold uint32   `json:"threshold"`
}

// outputJSON is any output: a secp256k1fx TransferOutput (amount and
// owners), a MintOutput (owners only), a stakeable LockOut (locktime and an
// inner output), or an nftfx output (groupID).
type outputJSON struct {
	Amount    *uint64     `json:"amount"`
	Addresses []string    `json:"addresses"`
	Locktime  uint64      `json:"locktime"`
	Threshold uint32      `json:"threshold"`
	Output    *outputJSON `json:"output"`
	GroupID   *uint32     `json:"groupID"`
}

type transferableOutJSON struct {
	AssetID string     `json:"assetID"`
	FxID    string     `json:"fxID"`
	Output  outputJSON `json:"output"`
}

type inputJSON struct {
	Amount *uint64    `json:"amount"`
	Input  *inputJSON `json:"input"`
}

type transferableInJSON struct {
	TxID        string    `json:"txID"`
	OutputIndex uint32    `json:"outputIndex"`
	AssetID     string    `json:"assetID"`
	Input       inputJSON `json:"input"`
}

type validatorJSON struct {
	NodeID   string `json:"nodeID"`
	Start    uint64 `json:"start"`
	End      uint64 `json:"end"`
	Weight   uint64 `json:"weight"`
	SubnetID string `json:"subnetID"`
}

type signerJSON struct {
	PublicKey         string `json:"publicKey"`
	ProofOfPossession string `json:"proofOfPossession"`
}

type pchainOwnerJSON struct {
	Threshold uint32   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

type l1ValidatorJSON struct {
	NodeID                string          `json:"nodeID"` // 0x hex bytes
	Weight                uint64          `json:"weight"`
	Balance               uint64          `json:"balance"`
	Signer                signerJSON      `json:"signer"`
	RemainingBalanceOwner pchainOwnerJSON `json:"remainingBalanceOwner"`
	DeactivationOwner     pchainOwnerJSON `json:"deactivationOwner"`
}

type initialStateJSON struct {
	FxIndex uint32       `json:"fxIndex"`
	Outputs []outputJSON `json:"outputs"`
}

type operationJSON struct {
	AssetID  string `json:"assetID"`
	InputIDs []struct {
		TxID        string `json:"txID"`
		OutputIndex uint32 `json:"outputIndex"`
	} `json:"inputIDs"`
	Operation struct {
		MintOutput     *outputJSON `json:"mintOutput"`
		TransferOutput *outputJSON `json:"transferOutput"`
	} `json:"operation"`
}

// unsignedJSON is the union of every P- and X-avanet.Chain unsigned tx's fields.
type unsignedJSON struct {
	Outputs          []transferableOutJSON `json:"outputs"`
	Inputs           []transferableInJSON  `json:"inputs"`
	Memo             string                `json:"memo"`
	Owner            *ownerJSON            `json:"owner"`
	NewOwner         *ownerJSON            `json:"newOwner"`
	SubnetID         string                `json:"subnetID"`
	ChainName        string                `json:"chainName"`
	VMID             string                `json:"vmID"`
	GenesisData      []byte                `json:"genesisData"`
	SourceChain      string                `json:"sourceChain"`
	ImportedInputs   []transferableInJSON  `json:"importedInputs"`
	DestinationChain string                `json:"destinationChain"`
	ExportedOutputs  []transferableOutJSON `json:"exportedOutputs"`
	Validator        *validatorJSON        `json:"validator"`
	Signer           *signerJSON           `json:"signer"`
	Stake            []transferableOutJSON `json:"stake"`
	ValidationOwner  *ownerJSON            `json:"validationRewardsOwner"`
	DelegationOwner  *ownerJSON            `json:"delegationRewardsOwner"`
	RewardsOwner     *ownerJSON            `json:"rewardsOwner"`
	Shares           *uint32               `json:"shares"`
	NodeID           string                `json:"nodeID"`
	ChainID          string                `json:"chainID"`
	Address          string                `json:"address"`
	Validators       []l1ValidatorJSON     `json:"validators"`
	Balance          *uint64               `json:"balance"`
	Message          string                `json:"message"`
	PoP              []int                 `json:"proofOfPossession"` // RegisterL1ValidatorTx: a byte array
	ValidationID     string                `json:"validationID"`
	TxID             string                `json:"txID"`
	Name             string                `json:"name"`
	Symbol           string                `json:"symbol"`
	Denomination     *uint8                `json:"denomination"`
	InitialStates    []initialStateJSON    `json:"initialStates"`
	Operations       []operationJSON       `json:"operations"`
}

// P-avanet.Chain transaction types, named as the Data API's PChainTransactionType.
const (
	TxBase                       = "BaseTx"
	TxAddValidator               = "AddValidatorTx"
	TxAddSubnetValidator         = "AddSubnetValidatorTx"
	TxAddDelegator               = "AddDelegatorTx"
	TxCreateChain                = "CreateChainTx"
	TxCreateSubnet               = "CreateSubnetTx"
	TxImport                     = "ImportTx"
	TxExport                     = "ExportTx"
	TxAdvanceTime                = "AdvanceTimeTx"
	TxRewardValidator            = "RewardValidatorTx"
	TxRemoveSubnetValidator      = "RemoveSubnetValidatorTx"
	TxTransformSubnet            = "TransformSubnetTx"
	TxAddPermissionlessVal       = "AddPermissionlessValidatorTx"
	TxAddPermissionlessDel       = "AddPermissionlessDelegatorTx"
	TxTransferSubnetOwnership    = "TransferSubnetOwnershipTx"
	TxConvertSubnetToL1          = "ConvertSubnetToL1Tx"
	TxRegisterL1Validator        = "RegisterL1ValidatorTx"
	TxSetL1ValidatorWeight       = "SetL1ValidatorWeightTx"
	TxDisableL1Validator         = "DisableL1ValidatorTx"
	TxIncreaseL1ValidatorBalance = "IncreaseL1ValidatorBalanceTx"
	// X-avanet.Chain only.
	TxCreateAsset = "CreateAssetTx"
	TxOperation   = "OperationTx"
)

// classifyP names a P-avanet.Chain unsigned tx by the fields it has. Each type's
// field set is from avalanchego's vms/platformvm/txs (v1.14).
func classifyP(keys map[string]json.RawMessage) string {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := keys[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case !has("networkID") && has("txID"):
		return TxRewardValidator
	case !has("networkID") && has("time"):
		return TxAdvanceTime
	case has("owner"):
		return TxCreateSubnet
	case has("chainName"):
		return TxCreateChain
	case has("importedInputs"):
		return TxImport
	case has("exportedOutputs"):
		return TxExport
	case has("validator", "signer"):
		return TxAddPermissionlessVal
	case has("validator", "subnetAuthorization"):
		return TxAddSubnetValidator
	case has("validator", "subnetID", "rewardsOwner"):
		return TxAddPermissionlessDel
	case has("validator", "shares"):
		return TxAddValidator
	case has("validator", "rewardsOwner"):
		return TxAddDelegator
	case has("newOwner"):
		return TxTransferSubnetOwnership
	case has("validators", "chainID", "address"):
		return TxConvertSubnetToL1
	case has("initialSupply"):
		return TxTransformSubnet
	case has("proofOfPossession", "message"):
		return TxRegisterL1Validator
	case has("validationID", "disableAuthorization"):
		return TxDisableL1Validator
	case has("validationID", "balance"):
		return TxIncreaseL1ValidatorBalance
	case has("message"):
		return TxSetL1ValidatorWeight
	case has("nodeID", "subnetID", "subnetAuthorization"):
		return TxRemoveSubnetValidator
	}
	return TxBase
}

// classifyX names an X-avanet.Chain unsigned tx by the fields it has.
func classifyX(keys map[string]json.RawMessage) string {
	for _, c := range []struct{ field, name string }{
		{"initialStates", TxCreateAsset}, {"operations", TxOperation},
		{"importedInputs", TxImport}, {"exportedOutputs", TxExport},
	} {
		if _, ok := keys[c.field]; ok {
			return c.name
		}
	}
	return TxBase
}

func parseID(s string) (avax.ID, error) {
	id, err := avax.ParseID(s)
	if err != nil {
		return id, fmt.Errorf("bad id %q: %w", s, err)
	}
	return id, nil
}

// parseAddrs reads "P-local1..." / "X-local1..." addresses, or the cb58
// short ids a PChainOwner prints, sorted as the codec keeps them.
func parseAddrs(in []string) ([]avax.ShortID, error) {
	out := make([]avax.ShortID, 0, len(in))
	for _, s := range in {
		a, err := avax.ParseShortID(s)
		if err != nil {
			if _, _, a, err = avax.ParseAddress(s); err != nil {
				return nil, fmt.Errorf("bad address %q: %w", s, err)
			}
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b avax.ShortID) int { return strings.Compare(string(a[:]), string(b[:])) })
	return out, nil
}

// parseNodeID reads "NodeID-..." or the 0x hex bytes of a
// ConvertSubnetToL1Validator.
func parseNodeID(s string) (avax.NodeID, error) {
	if strings.HasPrefix(s, "0x") {
		var id avax.NodeID
		b, err := hex.DecodeString(s[2:])
		if err != nil || len(b) != len(id) {
			return id, fmt.Errorf("bad node id %q", s)
		}
		copy(id[:], b)
		return id, nil
	}
	return avax.ParseNodeID(s)
}

// hexBytes reads 0x-prefixed hex.
func hexBytes(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, fmt.Errorf("bad hex %q: %w", s, err)
	}
	return b, nil
}

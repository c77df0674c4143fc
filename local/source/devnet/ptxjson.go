package devnet

import (
	"encoding/json"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The json encoding of P-Chain transactions and blocks, as avalanchego
// v1.14.2's platform.getBlockByHeight and platform.getTx print them: the
// field names and order of vms/platformvm/txs and block (owners and
// outputs are maps there, so their keys are sorted). The devnet's P-Chain
// transactions are modelled by this JSON alone: the node methods serve no
// P-Chain bytes, so the devnet makes none, and its transactions carry no
// credentials (there are no bytes to sign).

type pTxJSON struct {
	Unsigned    any    `json:"unsignedTx"`
	Credentials []any  `json:"credentials"`
	ID          string `json:"id"`
}

type pBaseJSON struct {
	NetworkID    uint32        `json:"networkID"`
	BlockchainID string        `json:"blockchainID"`
	Outputs      []pOutputJSON `json:"outputs"`
	Inputs       []pInputJSON  `json:"inputs"`
	Memo         string        `json:"memo"`
}

type pOutputJSON struct {
	AssetID string `json:"assetID"`
	FxID    string `json:"fxID"`
	Output  any    `json:"output"` // transferJSON or lockOutJSON
}

type transferJSON struct {
	Addresses []string `json:"addresses"`
	Amount    uint64   `json:"amount"`
	Locktime  uint64   `json:"locktime"`
	Threshold uint32   `json:"threshold"`
}

type lockOutJSON struct {
	Locktime uint64       `json:"locktime"`
	Output   transferJSON `json:"output"`
}

type pInputJSON struct {
	id          avax.ID       // TxID, for sorting
	TxID        string        `json:"txID"`
	OutputIndex uint32        `json:"outputIndex"`
	AssetID     string        `json:"assetID"`
	FxID        string        `json:"fxID"`
	Input       transferInput `json:"input"`
}

type transferInput struct {
	Amount           uint64   `json:"amount"`
	SignatureIndices []uint32 `json:"signatureIndices"`
}

type ownerJSON struct {
	Addresses []string `json:"addresses"`
	Locktime  uint64   `json:"locktime"`
	Threshold uint32   `json:"threshold"`
}

type authJSON struct {
	SignatureIndices []uint32 `json:"signatureIndices"`
}

type validatorJSON struct {
	NodeID string `json:"nodeID"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Weight uint64 `json:"weight"`
}

type subnetValidatorJSON struct {
	validatorJSON
	SubnetID string `json:"subnetID"`
}

type signerJSON struct {
	PublicKey         string `json:"publicKey"`
	ProofOfPossession string `json:"proofOfPossession"`
}

// pchainOwnerJSON is message.PChainOwner: cb58 short ids.
type pchainOwnerJSON struct {
	Threshold uint32   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

type createSubnetJSON struct {
	pBaseJSON
	Owner ownerJSON `json:"owner"`
}

type createChainJSON struct {
	pBaseJSON
	SubnetID    string   `json:"subnetID"`
	ChainName   string   `json:"chainName"`
	VMID        string   `json:"vmID"`
	FxIDs       []string `json:"fxIDs"`
	GenesisData []byte   `json:"genesisData"`
	SubnetAuth  authJSON `json:"subnetAuthorization"`
}

type pImportJSON struct {
	pBaseJSON
	SourceChain    string       `json:"sourceChain"`
	ImportedInputs []pInputJSON `json:"importedInputs"`
}

type pExportJSON struct {
	pBaseJSON
	DestinationChain string        `json:"destinationChain"`
	ExportedOutputs  []pOutputJSON `json:"exportedOutputs"`
}

type addPermissionlessValidatorJSON struct {
	pBaseJSON
	Validator       validatorJSON `json:"validator"`
	SubnetID        string        `json:"subnetID"`
	Signer          signerJSON    `json:"signer"`
	Stake           []pOutputJSON `json:"stake"`
	ValidationOwner ownerJSON     `json:"validationRewardsOwner"`
	DelegationOwner ownerJSON     `json:"delegationRewardsOwner"`
	Shares          uint32        `json:"shares"`
}

type addValidatorJSON struct {
	pBaseJSON
	Validator    validatorJSON `json:"validator"`
	Stake        []pOutputJSON `json:"stake"`
	RewardsOwner ownerJSON     `json:"rewardsOwner"`
	Shares       uint32        `json:"shares"`
}

type addPermissionlessDelegatorJSON struct {
	pBaseJSON
	Validator    validatorJSON `json:"validator"`
	SubnetID     string        `json:"subnetID"`
	Stake        []pOutputJSON `json:"stake"`
	RewardsOwner ownerJSON     `json:"rewardsOwner"`
}

type addSubnetValidatorJSON struct {
	pBaseJSON
	Validator  subnetValidatorJSON `json:"validator"`
	SubnetAuth authJSON            `json:"subnetAuthorization"`
}

type removeSubnetValidatorJSON struct {
	pBaseJSON
	NodeID     string   `json:"nodeID"`
	SubnetID   string   `json:"subnetID"`
	SubnetAuth authJSON `json:"subnetAuthorization"`
}

type rewardValidatorJSON struct {
	TxID string `json:"txID"`
}

type convertValidatorJSON struct {
	NodeID                string          `json:"nodeID"` // 0x hex bytes
	Weight                uint64          `json:"weight"`
	Balance               uint64          `json:"balance"`
	Signer                signerJSON      `json:"signer"`
	RemainingBalanceOwner pchainOwnerJSON `json:"remainingBalanceOwner"`
	DeactivationOwner     pchainOwnerJSON `json:"deactivationOwner"`
}

type convertJSON struct {
	pBaseJSON
	SubnetID   string                 `json:"subnetID"`
	ChainID    string                 `json:"chainID"`
	Address    string                 `json:"address"`
	Validators []convertValidatorJSON `json:"validators"`
	SubnetAuth authJSON               `json:"subnetAuthorization"`
}

type registerJSON struct {
	pBaseJSON
	Balance           uint64 `json:"balance"`
	ProofOfPossession []int  `json:"proofOfPossession"` // a byte array: numbers
	Message           string `json:"message"`
}

type setWeightJSON struct {
	pBaseJSON
	Message string `json:"message"`
}

type increaseBalanceJSON struct {
	pBaseJSON
	ValidationID string `json:"validationID"`
	Balance      uint64 `json:"balance"`
}

type disableJSON struct {
	pBaseJSON
	ValidationID string   `json:"validationID"`
	DisableAuth  authJSON `json:"disableAuthorization"`
}

// pBlockJSON is a Banff standard or proposal block: a proposal block holds
// its transaction in Tx, a standard block in Txs; a commit block neither.
type pBlockJSON struct {
	Time     int64             `json:"time"`
	ParentID string            `json:"parentID"`
	Height   uint64            `json:"height"`
	Txs      []json.RawMessage `json:"txs,omitempty"`
	Tx       json.RawMessage   `json:"tx,omitempty"`
	ID       string            `json:"id"`
}

// owner prints o with P-Chain addresses of hrp.
func ownerOf(o Owner, hrp string) ownerJSON {
	addrs := make([]string, len(o.Addresses))
	for i, a := range o.Addresses {
		addrs[i] = avax.FormatAddress("P", hrp, a)
	}
	return ownerJSON{Addresses: addrs, Locktime: o.Locktime, Threshold: o.Threshold}
}

// pchainOwner prints o as a message.PChainOwner.
func pchainOwner(o Owner) pchainOwnerJSON {
	addrs := make([]string, len(o.Addresses))
	for i, a := range o.Addresses {
		addrs[i] = a.String()
	}
	return pchainOwnerJSON{Threshold: o.Threshold, Addresses: addrs}
}

// byteArray prints b as encoding/json prints a byte array: numbers.
func byteArray(b []byte) []int {
	out := make([]int, len(b))
	for i, v := range b {
		out[i] = int(v)
	}
	return out
}

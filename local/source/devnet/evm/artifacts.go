package evm

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// The artifacts are committed; regenerate them after editing contracts/*.sol.
// SOLC_DIR caches the npm install of solcjs between runs.
//go:generate sh -c "d=${SOLC_DIR:-${TMPDIR:-/tmp}/avaedge-solc}; test -f $d/node_modules/solc/package.json || npm install --silent --no-audit --no-fund --prefix $d solc@0.8.28; NODE_PATH=$d/node_modules node contracts/compile.js"

//go:embed artifacts/*.json
var artifactFS embed.FS

// Artifact is one compiled contract of contracts/: its ABI and creation code.
type Artifact struct {
	Name     string
	ABI      abi.ABI
	Bytecode []byte
}

// Contract names accepted by LoadArtifact (and ContractMessenger).
const (
	ContractToken   = "AvaToken"
	ContractNFT     = "AvaNFT"
	ContractMulti   = "AvaMulti"
	ContractFactory = "Factory"
	ContractChild   = "Child"
)

// LoadArtifact returns the committed artifact of the named contract.
func LoadArtifact(name string) (*Artifact, error) {
	raw, err := artifactFS.ReadFile("artifacts/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("evm: artifact %q: %w", name, err)
	}
	var f struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode string          `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("evm: artifact %q: %w", name, err)
	}
	a, err := abi.JSON(strings.NewReader(string(f.ABI)))
	if err != nil {
		return nil, fmt.Errorf("evm: artifact %q abi: %w", name, err)
	}
	code, err := hexutil.Decode(f.Bytecode)
	if err != nil {
		return nil, fmt.Errorf("evm: artifact %q bytecode: %w", name, err)
	}
	return &Artifact{Name: name, ABI: a, Bytecode: code}, nil
}

// mustArtifact is LoadArtifact for the embedded files, which are known good.
func mustArtifact(name string) *Artifact {
	a, err := LoadArtifact(name)
	if err != nil {
		panic(err)
	}
	return a
}

// Deploy returns the creation input of a: its bytecode followed by the
// ABI-encoded constructor arguments.
func (a *Artifact) Deploy(args ...any) ([]byte, error) {
	enc, err := a.ABI.Pack("", args...)
	if err != nil {
		return nil, fmt.Errorf("evm: %s constructor: %w", a.Name, err)
	}
	return append(append([]byte{}, a.Bytecode...), enc...), nil
}

// Call returns the input of a call to method with args.
func (a *Artifact) Call(method string, args ...any) ([]byte, error) {
	enc, err := a.ABI.Pack(method, args...)
	if err != nil {
		return nil, fmt.Errorf("evm: %s.%s: %w", a.Name, method, err)
	}
	return enc, nil
}

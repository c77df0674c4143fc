package warpmsg

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// ConversionData is avalanchego's SubnetToL1ConversionData (vms/platformvm/
// warp/message): what a ConvertSubnetToL1Tx made of a subnet. Its id, the
// conversion id a SubnetToL1Conversion message carries and platform.getSubnet
// answers, is the sha256 of Bytes.
type ConversionData struct {
	SubnetID       [IDLen]byte
	ManagerChainID [IDLen]byte
	ManagerAddress []byte
	Validators     []ConversionValidator
}

// ConversionValidator is one initial validator of a conversion.
type ConversionValidator struct {
	NodeID       []byte // length-prefixed; a real node id is 20 bytes
	BLSPublicKey [PublicKeyLen]byte
	Weight       uint64
}

// Bytes returns the codec encoding: codec version 0, the subnet and manager
// chain ids, the manager address and the validators' node ids, BLS keys and
// weights.
func (d *ConversionData) Bytes() []byte {
	b := make([]byte, 0, 2+2*IDLen+4+len(d.ManagerAddress)+4+len(d.Validators)*(4+ShortIDLen+PublicKeyLen+8))
	b = binary.BigEndian.AppendUint16(b, codecVersion)
	b = append(b, d.SubnetID[:]...)
	b = append(b, d.ManagerChainID[:]...)
	b = appendBytes(b, d.ManagerAddress)
	b = binary.BigEndian.AppendUint32(b, uint32(len(d.Validators)))
	for _, v := range d.Validators {
		b = appendBytes(b, v.NodeID)
		b = append(b, v.BLSPublicKey[:]...)
		b = binary.BigEndian.AppendUint64(b, v.Weight)
	}
	return b
}

// ID returns the conversion id: the sha256 of Bytes.
func (d *ConversionData) ID() [IDLen]byte { return sha256.Sum256(d.Bytes()) }

// ConversionOfTx reads the conversion data of a ConvertSubnetToL1Tx from
// the node's JSON of it (platform.getTx, encoding json: node ids, the
// manager address and BLS keys as 0x hex).
func ConversionOfTx(body []byte) (*ConversionData, error) {
	var tx struct {
		Unsigned struct {
			SubnetID   string `json:"subnetID"`
			ChainID    string `json:"chainID"`
			Address    string `json:"address"`
			Validators []struct {
				NodeID string `json:"nodeID"`
				Weight uint64 `json:"weight"`
				Signer struct {
					PublicKey string `json:"publicKey"`
				} `json:"signer"`
			} `json:"validators"`
		} `json:"unsignedTx"`
	}
	if err := json.Unmarshal(body, &tx); err != nil {
		return nil, err
	}
	u := tx.Unsigned
	subnet, err := avax.ParseID(u.SubnetID)
	if err != nil {
		return nil, fmt.Errorf("subnetID: %w", err)
	}
	chain, err := avax.ParseID(u.ChainID)
	if err != nil {
		return nil, fmt.Errorf("chainID: %w", err)
	}
	addr, err := avax.DecodeHexNC(u.Address)
	if err != nil {
		return nil, fmt.Errorf("address: %w", err)
	}
	d := &ConversionData{SubnetID: subnet, ManagerChainID: chain, ManagerAddress: addr}
	for i, v := range u.Validators {
		node, err := avax.DecodeHexNC(v.NodeID)
		if err != nil {
			return nil, fmt.Errorf("validator %d nodeID: %w", i, err)
		}
		pk, err := avax.DecodeHexNC(v.Signer.PublicKey)
		if err != nil || len(pk) != PublicKeyLen {
			return nil, fmt.Errorf("validator %d publicKey: %q", i, v.Signer.PublicKey)
		}
		cv := ConversionValidator{NodeID: node, Weight: v.Weight}
		copy(cv.BLSPublicKey[:], pk)
		d.Validators = append(d.Validators, cv)
	}
	return d, nil
}

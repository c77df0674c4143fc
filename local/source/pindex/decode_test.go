package pindex

import (
	"encoding/json"
	"os"
	"testing"
)

// The files in testdata are avalanchego v1.14.2's own JSON encodings of its
// L1 transactions (vms/platformvm/txs/*_test.json), as the node's
// getBlockByHeight and getTx print them with encoding "json".
func TestClassifyPAvalanchegoJSON(t *testing.T) {
	tests := []struct{ file, want string }{
		{"convert_subnet_to_l1_tx_test_complex.json", TxConvertSubnetToL1},
		{"register_l1_validator_tx_test.json", TxRegisterL1Validator},
		{"set_l1_validator_weight_tx_test.json", TxSetL1ValidatorWeight},
		{"increase_l1_validator_balance_tx_test.json", TxIncreaseL1ValidatorBalance},
		{"disable_l1_validator_tx_test.json", TxDisableL1Validator},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(raw, &keys); err != nil {
				t.Fatal(err)
			}
			if got := classifyP(keys); got != tt.want {
				t.Fatalf("classifyP = %s; want %s", got, tt.want)
			}
			var u unsignedJSON
			if err := json.Unmarshal(raw, &u); err != nil {
				t.Fatalf("decoding into the union of tx fields: %v", err)
			}
			if len(u.Inputs) == 0 {
				t.Fatalf("no inputs decoded from %s", tt.file)
			}
		})
	}
}

func TestClassifyPConvertFields(t *testing.T) {
	raw, err := os.ReadFile("testdata/convert_subnet_to_l1_tx_test_complex.json")
	if err != nil {
		t.Fatal(err)
	}
	var u unsignedJSON
	if err := json.Unmarshal(raw, &u); err != nil {
		t.Fatal(err)
	}
	if len(u.Validators) != 1 || u.SubnetID == "" || u.ChainID == "" || u.Address == "" {
		t.Fatalf("conversion fields not decoded: %+v", u)
	}
	v := u.Validators[0]
	if _, err := parseNodeID(v.NodeID); err != nil {
		t.Fatalf("validator node id %q: %v", v.NodeID, err)
	}
	if v.Signer.PublicKey == "" || v.Signer.ProofOfPossession == "" || v.Weight == 0 {
		t.Fatalf("validator fields not decoded: %+v", v)
	}
}

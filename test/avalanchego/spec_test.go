package avalanchego

import "github.com/avaedge/avaedge/internal/spectest"

// glacier is the Data API's OpenAPI file (internal/spectest's copy), with
// OpenAPI 3.0's "nullable" turned into JSON Schema (null or the schema) and
// object-valued "examples" dropped.
var glacier = spectest.DataAPI(openAPI30)

func openAPI30(v any) {
	switch x := v.(type) {
	case map[string]any:
		if ex, ok := x["examples"].(map[string]any); ok {
			if _, isProp := ex["type"]; !isProp {
				delete(x, "examples")
			}
		}
		for _, c := range x {
			openAPI30(c)
		}
		if x["nullable"] == true {
			inner := map[string]any{}
			for k, c := range x {
				if k != "nullable" && k != "description" {
					inner[k] = c
					delete(x, k)
				}
			}
			delete(x, "nullable")
			x["anyOf"] = []any{map[string]any{"type": "null"}, inner}
		}
	case []any:
		for _, c := range x {
			openAPI30(c)
		}
	}
}

package avalanchego

import "github.com/avaedge/avaedge/internal/spectest"

// glacier is the Data API's OpenAPI file (internal/spectest's copy), with
// OpenAPI 3.0's "nullable" turned into JSON Schema (null or the schema) and
// object-valued "examples" dropped.
var glacier = spectest.DataAPI(spectest.OpenAPI30)

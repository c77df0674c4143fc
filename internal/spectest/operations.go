package spectest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Operation is one operation of an OpenAPI document: what a route
// catalogue compares itself with, and what a test needs to build a request.
type Operation struct {
	Method string // upper case: GET, POST, ...
	Path   string
	ID     string // the operationId
	// Params are the path and query parameters, then the top-level
	// properties of the JSON request body (In "body").
	Params []Parameter
}

// Parameter is one parameter of an Operation, its schema's $refs resolved.
type Parameter struct {
	Name     string
	In       string // "path", "query" or "body"
	Required bool
	// Type is the schema's type ("string", "integer", "number", "boolean",
	// "array"), "" when the schema gives none.
	Type string
	// Enum is the closed list of values, of the items for an array.
	Enum []string
	// Minimum and Maximum are the schema's bounds, nil when absent.
	Minimum, Maximum *float64
	// Default is the schema's default in its JSON text ("10", "true",
	// `"abc"`), "" when absent.
	Default string
	// Example is the parameter's (or its schema's) example in its JSON
	// text, "" when absent.
	Example string
}

// Operations returns every operation of the document, sorted by path and
// method.
func (s *Spec) Operations() ([]Operation, error) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(s.data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	resolve := func(sc *schema) *schema {
		for i := 0; sc != nil && sc.Ref != "" && i < 10; i++ {
			sc = doc.Components.Schemas[strings.TrimPrefix(sc.Ref, "#/components/schemas/")]
		}
		if sc == nil {
			return &schema{}
		}
		return sc
	}
	var ops []Operation
	for path, methods := range doc.Paths {
		for method, raw := range methods {
			var op struct {
				ID         string `json:"operationId"`
				Parameters []struct {
					Name     string          `json:"name"`
					In       string          `json:"in"`
					Required bool            `json:"required"`
					Schema   *schema         `json:"schema"`
					Example  json.RawMessage `json:"example"`
				} `json:"parameters"`
				RequestBody *struct {
					Content map[string]struct {
						Schema *schema `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			}
			if err := json.Unmarshal(raw, &op); err != nil || op.ID == "" {
				continue // not an operation (a path's shared fields)
			}
			o := Operation{Method: strings.ToUpper(method), Path: path, ID: op.ID}
			for _, p := range op.Parameters {
				sc := resolve(p.Schema)
				param := sc.parameter(resolve)
				param.Name, param.In, param.Required = p.Name, p.In, p.Required
				if len(p.Example) > 0 {
					param.Example = string(p.Example)
				}
				o.Params = append(o.Params, param)
			}
			if op.RequestBody != nil {
				body := resolve(op.RequestBody.Content["application/json"].Schema)
				names := make([]string, 0, len(body.Properties))
				for name := range body.Properties {
					names = append(names, name)
				}
				sort.Strings(names)
				for _, name := range names {
					param := resolve(body.Properties[name]).parameter(resolve)
					param.Name, param.In = name, "body"
					for _, r := range body.Required {
						param.Required = param.Required || r == name
					}
					o.Params = append(o.Params, param)
				}
			}
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops, nil
}

// schema is the part of a JSON schema a Parameter describes.
type schema struct {
	Ref        string             `json:"$ref"`
	Type       typeName           `json:"type"`
	Enum       []json.RawMessage  `json:"enum"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
	Default    json.RawMessage    `json:"default"`
	Example    json.RawMessage    `json:"example"`
	Examples   json.RawMessage    `json:"examples"`
	Items      *schema            `json:"items"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
}

func (sc *schema) parameter(resolve func(*schema) *schema) Parameter {
	p := Parameter{Type: string(sc.Type), Minimum: sc.Minimum, Maximum: sc.Maximum, Default: string(sc.Default)}
	enum := sc.Enum
	if sc.Type == "array" && sc.Items != nil {
		enum = resolve(sc.Items).Enum
	}
	for _, e := range enum {
		var v string
		if json.Unmarshal(e, &v) == nil {
			p.Enum = append(p.Enum, v)
		} else {
			p.Enum = append(p.Enum, string(bytes.TrimSpace(e)))
		}
	}
	switch {
	case len(sc.Example) > 0:
		p.Example = string(sc.Example)
	case len(sc.Examples) > 0 && sc.Examples[0] == '[':
		var list []json.RawMessage
		if json.Unmarshal(sc.Examples, &list) == nil && len(list) > 0 {
			p.Example = string(list[0])
		}
	}
	return p
}

// typeName is a schema's type: a name, or a list of names (OpenAPI 3.1)
// of which the first that is not "null" is kept.
type typeName string

func (t *typeName) UnmarshalJSON(b []byte) error {
	var list []string
	if json.Unmarshal(b, &list) == nil {
		for _, n := range list {
			if n != "null" {
				*t = typeName(n)
				return nil
			}
		}
		return nil
	}
	var n string
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*t = typeName(n)
	return nil
}

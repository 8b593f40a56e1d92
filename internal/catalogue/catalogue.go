// Package catalogue is the ledger of every operation in GitHub's OpenAPI
// description (generated into ops.json) and the status our route table
// proves for each.
package catalogue

import (
	_ "embed"
	"encoding/json"
	"sync"
)

//go:generate go run ./gen -spec ../../node_modules/@octokit/openapi/generated -seed ../../../shared/catalogue/seed-planned.json -out ops.json

//go:embed ops.json
var opsJSON []byte

// Operation is one entry of the ledger.
type Operation struct {
	Method      string   `json:"method"`
	Path        string   `json:"path"`
	OperationID string   `json:"operationId"`
	Category    string   `json:"category"`
	Subcategory string   `json:"subcategory"`
	Summary     string   `json:"summary"`
	Docs        string   `json:"docs"`
	Flavours    []string `json:"flavours"`
	Apps        bool     `json:"apps"`
	Seed        bool     `json:"seed,omitempty"`
	Tokens      []string `json:"tokens"`
}

var (
	once  sync.Once
	ops   []Operation
	byID  map[string]*Operation
	byKey map[string]*Operation
)

func load() {
	once.Do(func() {
		if err := json.Unmarshal(opsJSON, &ops); err != nil {
			panic("catalogue: ops.json: " + err.Error())
		}
		byID = make(map[string]*Operation, len(ops))
		byKey = make(map[string]*Operation, len(ops))
		for i := range ops {
			o := &ops[i]
			byKey[o.Method+" "+o.Path] = o
			if _, dup := byID[o.OperationID]; !dup {
				byID[o.OperationID] = o
			}
		}
	})
}

// All returns every operation, sorted by path and method.
func All() []Operation { load(); return ops }

// Lookup finds the operation of a method and spec path.
func Lookup(method, path string) (*Operation, bool) {
	load()
	o, ok := byKey[method+" "+path]
	return o, ok
}

// ByID finds an operation by operationId.
func ByID(id string) (*Operation, bool) {
	load()
	o, ok := byID[id]
	return o, ok
}

// DocsURL is the documentation URL GitHub puts in an operation's errors.
func DocsURL(operationID string) string {
	if o, ok := ByID(operationID); ok && o.Docs != "" {
		return o.Docs
	}
	return "https://docs.github.com/rest"
}

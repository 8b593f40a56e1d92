// Command gen builds ops.json, the ledger of every operation in GitHub's
// OpenAPI description (the union of the ghec, ghes-3.19 and api.github.com
// flavours of @octokit/openapi). Only facts are kept: method, path,
// operationId, category, subcategory, summary, documentation URL, flavours,
// whether GitHub Apps may call it, and the token badges of the seed list.
//
//	go run ./internal/catalogue/gen -spec node_modules/@octokit/openapi/generated -seed ../shared/catalogue/seed-planned.json -out internal/catalogue/ops.json
package main

import (
	"encoding/json"
	"flag"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type operation struct {
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

var flavours = []struct{ name, file string }{
	{"api.github.com", "api.github.com.json"},
	{"ghec", "ghec.json"},
	{"ghes-3.19", "ghes-3.19.json"},
}

func main() {
	specDir := flag.String("spec", "node_modules/@octokit/openapi/generated", "directory of the generated descriptions")
	seedPath := flag.String("seed", "../shared/catalogue/seed-planned.json", "seed list with token badges")
	out := flag.String("out", "internal/catalogue/ops.json", "output file")
	flag.Parse()

	ops := map[string]*operation{}
	for _, f := range flavours {
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		b, err := os.ReadFile(filepath.Join(*specDir, f.file))
		if err != nil {
			log.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			log.Fatal(err)
		}
		for path, item := range doc.Paths {
			for method, raw := range item {
				m := strings.ToUpper(method)
				if m != "GET" && m != "POST" && m != "PUT" && m != "PATCH" && m != "DELETE" {
					continue
				}
				var op struct {
					OperationID  string `json:"operationId"`
					Summary      string `json:"summary"`
					ExternalDocs struct {
						URL string `json:"url"`
					} `json:"externalDocs"`
					XGitHub struct {
						EnabledForGitHubApps bool   `json:"enabledForGitHubApps"`
						Category             string `json:"category"`
						Subcategory          string `json:"subcategory"`
					} `json:"x-github"`
				}
				if err := json.Unmarshal(raw, &op); err != nil {
					log.Fatal(err)
				}
				key := m + " " + path
				o := ops[key]
				if o == nil {
					o = &operation{Method: m, Path: path, OperationID: op.OperationID, Category: op.XGitHub.Category,
						Subcategory: op.XGitHub.Subcategory, Summary: op.Summary, Docs: publicDocs(op.ExternalDocs.URL), Apps: op.XGitHub.EnabledForGitHubApps}
					ops[key] = o
				}
				if o.Subcategory == "" {
					// Some flavours leave it null.
					o.Subcategory = op.XGitHub.Subcategory
				}
				o.Flavours = append(o.Flavours, f.name)
				o.Apps = o.Apps || op.XGitHub.EnabledForGitHubApps
			}
		}
	}

	var seed []struct {
		Method string   `json:"method"`
		Path   string   `json:"path"`
		Tokens []string `json:"tokens"`
	}
	if b, err := os.ReadFile(*seedPath); err == nil {
		if err := json.Unmarshal(b, &seed); err != nil {
			log.Fatal(err)
		}
	} else {
		log.Printf("no seed list (%v): token badges come from the description alone", err)
	}
	for _, s := range seed {
		if o := ops[s.Method+" "+s.Path]; o != nil {
			o.Seed, o.Tokens = true, s.Tokens
		}
	}
	list := make([]*operation, 0, len(ops))
	for _, o := range ops {
		if !o.Seed {
			// IAT where GitHub Apps may call it; UAT where a user token may:
			// everything but the operations that authenticate as an app (JWT)
			// or with an OAuth client's id and secret.
			o.Tokens = []string{}
			if userCallable(o) {
				o.Tokens = append(o.Tokens, "UAT")
			}
			if o.Apps {
				o.Tokens = append(o.Tokens, "IAT")
			}
		}
		list = append(list, o)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Path != list[j].Path {
			return list[i].Path < list[j].Path
		}
		return list[i].Method < list[j].Method
	})
	b, err := json.MarshalIndent(list, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d operations", len(list))
}

// userCallable is false for operations that need an app's JWT or an OAuth
// app's client credentials instead of a user's token.
func userCallable(o *operation) bool {
	switch {
	case strings.HasPrefix(o.Path, "/app/") || o.Path == "/app" || strings.HasPrefix(o.Path, "/app-manifests/"):
		return false
	case strings.HasPrefix(o.Path, "/applications/"):
		return false
	case strings.HasPrefix(o.Path, "/repos/{owner}/{repo}/installation"), strings.HasPrefix(o.Path, "/orgs/{org}/installation"),
		strings.HasPrefix(o.Path, "/users/{username}/installation"):
		return false
	case strings.HasPrefix(o.Path, "/admin/"), strings.HasPrefix(o.Path, "/manage/"), strings.HasPrefix(o.Path, "/setup/"):
		return false
	}
	return true
}

// publicDocs turns a flavour's documentation URL into GitHub's public one.
func publicDocs(u string) string {
	for _, p := range []string{"https://docs.github.com/enterprise-cloud@latest", "https://docs.github.com/enterprise-server@3.19"} {
		if s, ok := strings.CutPrefix(u, p); ok {
			return "https://docs.github.com" + s
		}
	}
	return u
}

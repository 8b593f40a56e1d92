package hooks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// TestEveryEventName: a hook may subscribe to every event of GitHub's
// webhooks description (GHES 3.19), hubd's deliveries or not.
func TestEveryEventName(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(apitest.Root(), "node_modules", "@octokit", "openapi-webhooks", "generated", "ghes-3.19.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Webhooks map[string]struct {
			Post struct {
				OperationID string `json:"operationId"`
			} `json:"post"`
		} `json:"webhooks"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range doc.Webhooks {
		name, _, _ := strings.Cut(w.Post.OperationID, "/")
		name = strings.ReplaceAll(name, "-", "_")
		if name != "ping" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	f := newFixture(t)
	h := f.hook("", "json", names...)
	if !slices.Equal(h.Events, names) {
		t.Errorf("events %v, want %v", h.Events, names)
	}
}

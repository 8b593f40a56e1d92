package ghcli_test

import (
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhSearchCodeAndCommits runs gh search code and gh search commits on
// the index of mona/hello's default branch (feature.txt, on the feature
// branch only, is not searched).
func TestGhSearchCodeAndCommits(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	e.Must(201, "PUT", "/repos/mona/hello/contents/src/hello.go", w.tok, map[string]any{"message": "Add the greeter",
		"content": base64.StdEncoding.EncodeToString([]byte("package hello\n\n// Greeter says a feature hello.\n"))})
	e.RunJobs()
	g := ghcli.Start(t, e)
	g.LoginAs("mona", w.tok)

	var files []struct {
		Path       string
		SHA        string
		Repository struct {
			NameWithOwner string `json:"nameWithOwner"`
		}
		TextMatches []struct {
			Fragment string
			Property string
		} `json:"textMatches"`
	}
	out := g.Must("search", "code", "feature", "--json", "path,sha,repository,textMatches")
	if err := json.Unmarshal([]byte(out), &files); err != nil {
		t.Fatalf("gh search code: %v\n%s", err, out)
	}
	if len(files) != 1 || files[0].Path != "src/hello.go" || files[0].Repository.NameWithOwner != "mona/hello" || len(files[0].SHA) != 40 ||
		len(files[0].TextMatches) != 1 || !strings.Contains(files[0].TextMatches[0].Fragment, "Greeter says a feature hello.") {
		t.Fatalf("gh search code feature: %s", out)
	}
	if out := g.Must("search", "code", "greeter", "--repo", "mona/hello", "--extension", "go"); !strings.Contains(out, "mona/hello:src/hello.go") {
		t.Fatalf("gh search code greeter: %q", out)
	}

	var commits []struct {
		SHA    string
		Commit struct {
			Message string
		}
		Author struct {
			Login string
		}
		Repository struct {
			FullName string `json:"fullName"`
		}
	}
	out = g.Must("search", "commits", "--author", "mona", "--json", "sha,commit,author,repository")
	if err := json.Unmarshal([]byte(out), &commits); err != nil {
		t.Fatalf("gh search commits: %v\n%s", err, out)
	}
	var msgs []string
	for _, c := range commits {
		msgs = append(msgs, c.Commit.Message)
		if c.Author.Login != "mona" || c.Repository.FullName != "mona/hello" {
			t.Fatalf("gh search commits: %s", out)
		}
	}
	// "Add feature" is on the feature branch: not searched.
	sort.Strings(msgs)
	if strings.Join(msgs, "|") != "Add the greeter|Initial commit" {
		t.Fatalf("gh search commits --author mona: %q", msgs)
	}
	if out := g.Must("search", "commits", "greeter", "--repo", "mona/hello"); !strings.Contains(out, "Add the greeter") {
		t.Fatalf("gh search commits greeter: %q", out)
	}
}

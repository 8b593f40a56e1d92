package runners

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
)

func TestGroupAdmits(t *testing.T) {
	const wref = "acme/app/.github/workflows/ci.yml@refs/heads/main"
	g := func(vis string, public, restricted bool, wf ...string) *model.RunnerGroup {
		return &model.RunnerGroup{Visibility: vis, AllowsPublic: public, RestrictedToWorkflows: restricted, SelectedWorkflows: wf}
	}
	for _, c := range []struct {
		name                       string
		g                          *model.RunnerGroup
		targeted, selected, public bool
		want                       bool
	}{
		{"all", g("all", false, false), true, false, false, true},
		{"all, public refused", g("all", false, false), true, false, true, false},
		{"all, public allowed", g("all", true, false), true, false, true, true},
		{"selected, not selected", g("selected", true, false), true, false, false, false},
		{"selected", g("selected", true, false), true, true, false, true},
		{"selected, user repository", g("selected", true, false), false, false, false, false},
		{"private, public repository", g("private", true, false), true, false, true, false},
		{"private", g("private", true, false), true, false, false, true},
		{"workflow exact", g("all", true, true, wref), true, false, false, true},
		{"workflow any ref", g("all", true, true, "acme/app/.github/workflows/ci.yml@*"), true, false, false, true},
		{"workflow other", g("all", true, true, "acme/app/.github/workflows/other.yml@*"), true, false, false, false},
		{"workflow none", g("all", true, true), true, false, false, false},
	} {
		if got := groupAdmits(c.g, c.targeted, c.selected, c.public, wref); got != c.want {
			t.Errorf("%s: got %v", c.name, got)
		}
	}
}

func TestHasLabels(t *testing.T) {
	r := &model.Runner{Labels: []model.RunnerLabel{{Name: "self-hosted"}, {Name: "Linux"}, {Name: "ubuntu-latest"}}}
	for labels, want := range map[string]bool{"ubuntu-latest": true, "self-hosted,linux": true, "self-hosted,gpu": false, "": true} {
		var ls []string
		if labels != "" {
			ls = strings.Split(labels, ",")
		}
		if hasLabels(r, ls) != want {
			t.Errorf("%q: want %v", labels, want)
		}
	}
}

func TestResolveLabels(t *testing.T) {
	m := map[string]any{"os": "ubuntu-latest", "n": 2}
	got := ResolveLabels([]string{"${{ matrix.os }}", "self-hosted", "x-${{matrix.n}}", "${{ github.x }}"}, m)
	if strings.Join(got, ",") != "ubuntu-latest,self-hosted,x-2" {
		t.Fatalf("got %v", got)
	}
}

package rulesets

import (
	"testing"

	"github.com/hubd/hubd/internal/model"
)

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"refs/heads/main", "refs/heads/main", true},
		{"refs/heads/main", "refs/heads/main2", false},
		{"refs/heads/release/*", "refs/heads/release/1.0", true},
		{"refs/heads/release/*", "refs/heads/release/1.0/hotfix", false}, // * stays in a segment
		{"refs/heads/release/**/*", "refs/heads/release/1.0/hotfix", true},
		{"refs/heads/release/**/*", "refs/heads/release/1.0", true}, // **/ spans zero segments too
		{"refs/heads/qa**/**/*", "refs/heads/qa-x/y/z", true},
		{"refs/heads/v?", "refs/heads/v1", true},
		{"refs/heads/v?", "refs/heads/v/", false},
		{"refs/heads/[ab]*", "refs/heads/beta", true},
		{"refs/heads/[!ab]*", "refs/heads/beta", false},
		{"refs/heads/[^ab]*", "refs/heads/gamma", true},
		{"refs/heads/a.b", "refs/heads/axb", false}, // no regexp leaks through
		{"refs/heads/(x)", "refs/heads/(x)", true},
	} {
		if got := globMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("%s ~ %s: %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestRefConditions(t *testing.T) {
	rs := &model.Ruleset{Target: model.RulesetTargetBranch, Conditions: &model.RulesetConditions{RefName: &model.NamePatterns{
		Include: []string{"~DEFAULT_BRANCH", "release/*"}, Exclude: []string{"refs/heads/release/old"}}}}
	for ref, want := range map[string]bool{
		"refs/heads/trunk":       true, // the default branch
		"refs/heads/main":        false,
		"refs/heads/release/1":   true, // a short pattern is within refs/heads/
		"refs/heads/release/old": false,
		"refs/tags/release/1":    false, // not a branch
	} {
		if got := refMatches(rs, ref, "trunk"); got != want {
			t.Errorf("%s: %v, want %v", ref, got, want)
		}
	}
	if refMatches(&model.Ruleset{Target: model.RulesetTargetBranch}, "refs/heads/trunk", "trunk") {
		t.Error("a ruleset without conditions selected a branch")
	}
	tags := &model.Ruleset{Target: model.RulesetTargetTag, Conditions: &model.RulesetConditions{RefName: &model.NamePatterns{Include: []string{"~ALL"}}}}
	if !refMatches(tags, "refs/tags/v1", "main") || refMatches(tags, "refs/heads/main", "main") {
		t.Error("~ALL of a tag ruleset")
	}
	c := &model.RulesetConditions{RepositoryName: &model.NamePatterns{Include: []string{"Core*"}, Exclude: []string{"core-old"}}}
	for name, want := range map[string]bool{"core": true, "CORE-api": true, "core-old": false, "docs": false} {
		if got := repoMatches(c, name); got != want {
			t.Errorf("repository %s: %v, want %v", name, got, want)
		}
	}
}

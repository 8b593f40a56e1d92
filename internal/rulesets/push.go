package rulesets

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// Push rulesets (target push) apply to every ref of the repositories
// they select: their rules read the files the push's new commits add or
// change, walked once for the whole push (gitrepo.NewFiles).

// RuleHit is how often a push rule of a ruleset was broken by a push:
// the data of a push rule bypass request.
type RuleHit struct {
	RulesetID   int64
	RulesetName string
	RuleType    string
	Total       int
}

// maxListed bounds the files a reason names.
const maxListed = 10

// pushCheck is the verdict of the push rulesets on one push.
type pushCheck struct {
	reasons []string
	hits    []RuleHit
	// delegable: every ruleset that refused the push has a bypass list,
	// whose members may review a request to bypass it.
	delegable bool
}

// checkPush evaluates the push rulesets of list on the files the changes
// add, for the actor (skipping rulesets bypassed, and those in skip).
func (s *Service) checkPush(ctx context.Context, repo *model.Repo, b *bypasser, list []*model.Ruleset, changes []RefChange, env []string,
	skip map[int64]bool) (*pushCheck, error) {
	var rulesets []*model.Ruleset
	for _, r := range list {
		if r.Target != model.RulesetTargetPush || skip[r.ID] {
			continue
		}
		mode, err := b.mode(ctx, r)
		if err != nil {
			return nil, err
		}
		if mode == model.BypassAlways || mode == model.BypassExempt {
			continue
		}
		rulesets = append(rulesets, r)
	}
	var tips []string
	for _, ch := range changes {
		if ch.New != gitrepo.ZeroOID && !slices.Contains(tips, ch.New) {
			tips = append(tips, ch.New)
		}
	}
	out := &pushCheck{delegable: true}
	if len(rulesets) == 0 || len(tips) == 0 {
		return out, nil
	}
	type ruleRef struct {
		rs   *model.Ruleset
		rule model.RulesetRule
	}
	var rules []ruleRef
	for _, r := range rulesets {
		for _, rule := range r.Rules {
			rules = append(rules, ruleRef{r, rule})
		}
	}
	found := make([][]gitrepo.NewFile, len(rules))
	count := make([]int, len(rules))
	err := s.Git.Open(repo.ID).NewFiles(ctx, env, tips, func(f gitrepo.NewFile) error {
		for i, x := range rules {
			if breaks(x.rule, f) {
				count[i]++
				if len(found[i]) < maxListed {
					found[i] = append(found[i], f)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	refused := map[int64]bool{}
	for i, x := range rules {
		if count[i] == 0 {
			continue
		}
		refused[x.rs.ID] = true
		out.hits = append(out.hits, RuleHit{RulesetID: x.rs.ID, RulesetName: x.rs.Name, RuleType: x.rule.Type, Total: count[i]})
		var b strings.Builder
		b.WriteString(pushReason(x.rule))
		fmt.Fprintf(&b, "\nFound %s:", plural(count[i], "violation"))
		for _, f := range found[i] {
			fmt.Fprintf(&b, "\n%s in %s", f.Path, f.Commit)
		}
		out.reasons = append(out.reasons, b.String())
	}
	for _, r := range rulesets {
		if refused[r.ID] && len(r.Bypass) == 0 {
			out.delegable = false
		}
	}
	return out, nil
}

func pushReason(rule model.RulesetRule) string {
	switch rule.Type {
	case model.RuleFilePathRestriction:
		return "Cannot push files at restricted file paths: " + strings.Join(rule.Restricted, ", ")
	case model.RuleFileExtensionRestriction:
		return "Cannot push files with restricted file extensions: " + strings.Join(rule.Restricted, ", ")
	case model.RuleMaxFilePathLength:
		return fmt.Sprintf("Cannot push file paths longer than %d characters.", rule.Max)
	case model.RuleMaxFileSize:
		return fmt.Sprintf("Cannot push files larger than %d MB.", rule.Max)
	}
	return ""
}

// breaks reports whether a new file breaks a push rule.
func breaks(rule model.RulesetRule, f gitrepo.NewFile) bool {
	switch rule.Type {
	case model.RuleFilePathRestriction:
		return slices.ContainsFunc(rule.Restricted, func(p string) bool { return pathRestricted(p, f.Path) })
	case model.RuleFileExtensionRestriction:
		ext := strings.ToLower(path.Ext(f.Path))
		return ext != "" && slices.ContainsFunc(rule.Restricted, func(e string) bool { return normalExt(e) == ext })
	case model.RuleMaxFilePathLength:
		return len([]rune(f.Path)) > rule.Max
	case model.RuleMaxFileSize:
		return f.Size > int64(rule.Max)<<20
	}
	return false
}

// normalExt reads a restricted extension as GitHub's settings show them
// ("*.exe", ".exe" or "exe"), lower-cased with its dot.
func normalExt(e string) string {
	e = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(e), "*"))
	if !strings.HasPrefix(e, ".") {
		e = "." + e
	}
	return e
}

// pathRestricted reports whether a restricted path (an fnmatch pattern
// as ref conditions read them, e.g. "secrets/**" or "*.pem" at the top)
// selects a file: the file itself or one of the folders above it.
func pathRestricted(pattern, file string) bool {
	pattern = strings.TrimPrefix(strings.TrimSuffix(pattern, "/"), "/")
	re, err := compileGlob(pattern)
	if err != nil {
		return false
	}
	for p := file; ; {
		if re.MatchString(p) {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

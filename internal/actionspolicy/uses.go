package actionspolicy

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// githubOwners own the actions "created by GitHub".
var githubOwners = map[string]bool{"actions": true, "github": true}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// CheckUses refuses the uses: of a job's steps (or of the job, a reusable
// workflow) that the repository's policies do not allow, with GitHub's
// message; local actions (./path) are always allowed.
// hubdOwner reports whether an account of that login exists in hubd (the
// enterprise's "local" actions are its accounts').
func (e *Effective) CheckUses(repo *model.Repo, uses []string, hubdOwner func(login string) bool) error {
	for _, u := range uses {
		if strings.HasPrefix(u, "./") || u == "" {
			continue
		}
		for _, l := range e.levels() {
			owner := repo.Owner.Login
			if l == &e.Enterprise {
				owner = "your enterprise"
			}
			if err := l.checkOne(repo, owner, u, l == &e.Enterprise, hubdOwner); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOne checks one uses: against one level's policy (owner: whom the
// level's "local" actions belong to, for the message).
func (l *Settings) checkOne(repo *model.Repo, owner, u string, enterprise bool, hubdOwner func(string) bool) error {
	name, ref, _ := strings.Cut(u, "@")
	actOwner, _, _ := strings.Cut(name, "/")
	if l.SHAPinning && !strings.HasPrefix(u, "docker://") && !fullSHA.MatchString(ref) {
		return fmt.Errorf("The action %s is not allowed in %s because all actions must be pinned to a full-length commit SHA.", u, repo.FullName())
	}
	// "Local" is the repository's owner, or (for the enterprise) any
	// account of hubd's.
	local := strings.EqualFold(actOwner, repo.Owner.Login) ||
		(enterprise && !strings.HasPrefix(u, "docker://") && hubdOwner != nil && hubdOwner(actOwner))
	var reasons []string
	switch l.Allowed() {
	case All:
		return nil
	case LocalOnly:
		if local {
			return nil
		}
		reasons = []string{"from a repository owned by " + owner}
	case Selected:
		if local || (l.GitHubOwnedAllowed() && githubOwners[strings.ToLower(actOwner)]) {
			return nil
		}
		for _, p := range l.Patterns {
			if matchPattern(p, name, ref) {
				return nil
			}
		}
		reasons = []string{"from a repository owned by " + owner}
		if l.GitHubOwnedAllowed() {
			reasons = append(reasons, "created by GitHub")
		}
		if l.Verified {
			reasons = append(reasons, "verified in the GitHub Marketplace")
		}
		if len(l.Patterns) > 0 {
			reasons = append(reasons, "match one of the patterns: "+strings.Join(l.Patterns, ", "))
		}
	}
	msg := reasons[0]
	if n := len(reasons); n == 2 {
		msg = reasons[0] + " or " + reasons[1]
	} else if n > 2 {
		msg = strings.Join(reasons[:n-1], ", ") + ", or " + reasons[n-1]
	}
	return fmt.Errorf("The action %s is not allowed in %s because all actions must be %s.", u, repo.FullName(), msg)
}

// matchPattern matches an action (owner/repo[/path]) at ref against a
// patterns_allowed entry: owner/*, owner/repo@*, owner/repo@v2, ...;
// a pattern without @ takes any ref. Matching ignores case, as GitHub's.
func matchPattern(p, name, ref string) bool {
	pn, pref, hasRef := strings.Cut(strings.ToLower(strings.TrimSpace(p)), "@")
	name, ref = strings.ToLower(name), strings.ToLower(ref)
	if ok, _ := path.Match(pn, name); !ok && !strings.HasSuffix(pn, "/*") {
		return false
	} else if !ok && !strings.HasPrefix(name, strings.TrimSuffix(pn, "*")) {
		return false
	}
	if !hasRef {
		return true
	}
	ok, _ := path.Match(pref, ref)
	return ok
}

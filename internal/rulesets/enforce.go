package rulesets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// AppliedRule is a rule of an active ruleset that applies to a ref, with
// its ruleset.
type AppliedRule struct {
	Rule    model.RulesetRule
	Ruleset *model.Ruleset
}

// active are the active rulesets that apply to repo (its organization's
// first), in one query.
func (s *Service) active(ctx context.Context, repo *model.Repo) ([]*model.Ruleset, error) {
	all, err := s.Store.R().RulesetsFor(ctx, repo.ID, orgOf(repo), true)
	if err != nil {
		return nil, err
	}
	parents, own := split(repo, all)
	out := []*model.Ruleset{}
	for _, r := range append(parents, own...) {
		if r.Enforcement == model.EnforcementActive {
			out = append(out, r)
		}
	}
	return out, nil
}

// RulesForBranch are the rules of the active rulesets that apply to a
// branch (which need not exist), push rulesets' included, the
// organization's first, each ruleset's in order (GET
// .../rules/branches/{branch}).
func (s *Service) RulesForBranch(ctx context.Context, repo *model.Repo, branch string) ([]AppliedRule, error) {
	list, err := s.active(ctx, repo)
	if err != nil {
		return nil, err
	}
	out := []AppliedRule{}
	for _, r := range list {
		// A push ruleset's rules apply to every branch.
		if r.Target != model.RulesetTargetPush && (r.Target != model.RulesetTargetBranch || !refMatches(r, "refs/heads/"+branch, repo.DefaultBranch)) {
			continue
		}
		for _, rule := range r.Rules {
			out = append(out, AppliedRule{Rule: rule, Ruleset: r})
		}
	}
	return out, nil
}

// RefChange is one ref a write moves; Old is gitrepo.ZeroOID for a
// creation, New for a deletion.
type RefChange struct {
	Ref, Old, New string
}

// Violation is what the rules refuse of one ref change.
type Violation struct {
	Ref     string
	Reasons []string
}

// Verdict is the rules' answer on a set of ref changes: the violations
// (none: the changes may be made) and, of them, what the push rulesets
// refused (Hits) and whether all those rulesets have a bypass list whose
// members may review a request to bypass them (Delegable).
type Verdict struct {
	Violations []Violation
	Hits       []RuleHit
	Delegable  bool
}

// CheckChanges evaluates the active rulesets of repo on ref changes an
// actor makes directly (a push, or a ref write through the API; pull
// request merges go through MergeRules): the violations, none when the
// changes may be made. env lets git see objects not yet in the repository
// (a push's quarantine), nil otherwise. Rulesets the actor may always
// bypass (or is exempt from) are not evaluated.
func (s *Service) CheckChanges(ctx context.Context, repo *model.Repo, actor Actor, changes []RefChange, env []string) ([]Violation, error) {
	v, err := s.check(ctx, repo, actor, changes, env, nil)
	if err != nil {
		return nil, err
	}
	return v.Violations, nil
}

// check is CheckChanges with its push rule hits; the push rulesets in
// skip are not evaluated (an approved bypass request).
func (s *Service) check(ctx context.Context, repo *model.Repo, actor Actor, changes []RefChange, env []string, skip map[int64]bool) (*Verdict, error) {
	list, err := s.active(ctx, repo)
	if err != nil || len(list) == 0 {
		return &Verdict{}, err
	}
	b := s.bypasser(repo, actor)
	push, err := s.checkPush(ctx, repo, b, list, changes, env, skip)
	if err != nil {
		return nil, err
	}
	var out []Violation
	for _, ch := range changes {
		if !gitrepo.ValidOID(ch.Old) || !gitrepo.ValidOID(ch.New) {
			return nil, fmt.Errorf("rulesets: invalid change %q %q", ch.Old, ch.New)
		}
		f := &facts{s: s, repo: repo, g: s.Git.Open(repo.ID), env: env, ch: ch}
		var reasons []string
		if ch.New != gitrepo.ZeroOID {
			reasons = append(reasons, push.reasons...)
		}
		for _, r := range list {
			if r.Target == model.RulesetTargetPush || !refMatches(r, ch.Ref, repo.DefaultBranch) {
				continue
			}
			mode, err := b.mode(ctx, r)
			if err != nil {
				return nil, err
			}
			if mode == model.BypassAlways || mode == model.BypassExempt {
				continue
			}
			for _, rule := range r.Rules {
				reason, err := f.violation(ctx, r.Target, rule)
				if err != nil {
					return nil, err
				}
				if reason != "" && !slices.Contains(reasons, reason) {
					reasons = append(reasons, reason)
				}
			}
		}
		if len(reasons) > 0 {
			out = append(out, Violation{Ref: ch.Ref, Reasons: reasons})
		}
	}
	return &Verdict{Violations: out, Hits: push.hits, Delegable: push.delegable && len(push.hits) > 0}, nil
}

// RESTError is the error of an API write the rules refuse: GitHub's
// "Repository rule violations found" with the reasons, at status (422 for
// the git refs API, 409 for contents).
func RESTError(v []Violation, status int) error {
	var reasons []string
	for _, x := range v {
		for _, r := range x.Reasons {
			if !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
	}
	return &model.HTTPError{Status: status, Message: "Repository rule violations found\n\n" + strings.Join(reasons, "\n\n") + "\n\n"}
}

// PushMessage is what a refused push shows the pusher (git prints each
// line after "remote: "): per ref, GitHub's GH013 error, where to read
// the rules, and the reasons. rulesURL names the page of a ref's rules.
func PushMessage(v []Violation, rulesURL func(ref string) string) string {
	var b strings.Builder
	for _, x := range v {
		fmt.Fprintf(&b, "error: GH013: Repository rule violations found for %s.\n", x.Ref)
		if rulesURL != nil {
			fmt.Fprintf(&b, "Review all repository rules at %s\n", rulesURL(x.Ref))
		}
		b.WriteString("\n")
		for _, r := range x.Reasons {
			b.WriteString("- " + strings.ReplaceAll(r, "\n", "\n  ") + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// facts are what the rules ask of one ref change, worked out once.
type facts struct {
	s    *Service
	repo *model.Repo
	g    *gitrepo.Repo
	env  []string
	ch   RefChange

	ff      *bool
	merges  *bool
	commits []commitMeta
	loaded  bool
	states  map[string]string
}

type commitMeta struct {
	sha, authorEmail, committerEmail, message string
}

func (f *facts) creation() bool { return f.ch.Old == gitrepo.ZeroOID }
func (f *facts) deletion() bool { return f.ch.New == gitrepo.ZeroOID }
func (f *facts) update() bool   { return !f.creation() && !f.deletion() }

// kind is how reasons name the ref.
func kind(target string) string {
	if target == model.RulesetTargetTag {
		return "tag"
	}
	return "branch"
}

// violation is the reason a rule refuses the change ("" when it does not).
func (f *facts) violation(ctx context.Context, target string, rule model.RulesetRule) (string, error) {
	switch rule.Type {
	case model.RuleCreation:
		if f.creation() {
			return "Cannot create ref due to creations being restricted.", nil
		}
	case model.RuleUpdate:
		if f.update() {
			return "Cannot update this protected ref.", nil
		}
	case model.RuleDeletion:
		if f.deletion() {
			return "Cannot delete this " + kind(target) + ".", nil
		}
	case model.RuleNonFastForward:
		if f.update() {
			ff, err := f.fastForward(ctx)
			if err != nil || ff {
				return "", err
			}
			return "Cannot force-push to this " + kind(target) + ".", nil
		}
	case model.RuleRequiredLinearHistory:
		if !f.deletion() {
			merges, err := f.hasMerges(ctx)
			if err != nil || !merges {
				return "", err
			}
			return "This " + kind(target) + " must not contain merge commits.", nil
		}
	case model.RulePullRequest:
		if f.update() {
			return "Changes must be made through a pull request.", nil
		}
	case model.RuleRequiredStatusChecks:
		c := rule.StatusChecks
		if f.deletion() || c == nil || len(c.Checks) == 0 || f.creation() && c.DoNotEnforceOnCreate {
			return "", nil
		}
		states, err := f.statuses(ctx)
		if err != nil {
			return "", err
		}
		return ChecksReason(Contexts(c), states), nil
	case model.RuleCommitMessagePattern, model.RuleCommitAuthorEmailPattern, model.RuleCommitterEmailPattern:
		if f.deletion() || rule.Pattern == nil {
			return "", nil
		}
		commits, err := f.newCommits(ctx)
		if err != nil {
			return "", err
		}
		holds := matcher(rule.Pattern)
		var bad []string
		for _, c := range commits {
			v := c.message
			switch rule.Type {
			case model.RuleCommitAuthorEmailPattern:
				v = c.authorEmail
			case model.RuleCommitterEmailPattern:
				v = c.committerEmail
			}
			if !holds(v) {
				bad = append(bad, c.sha)
			}
		}
		if len(bad) == 0 {
			return "", nil
		}
		return patternReason(rule) + "\nFound " + plural(len(bad), "violation") + ":\n" + strings.Join(bad[:min(len(bad), 10)], "\n"), nil
	case model.RuleBranchNamePattern, model.RuleTagNamePattern:
		if !f.creation() || rule.Pattern == nil {
			return "", nil
		}
		name := strings.TrimPrefix(f.ch.Ref, namespace(target))
		if !matcher(rule.Pattern)(name) {
			return patternReason(rule), nil
		}
	}
	// required_signatures is stored, not enforced (hubd does not verify
	// signatures).
	return "", nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// matcher reports whether values satisfy a pattern rule.
func matcher(p *model.PatternRule) func(v string) bool {
	var re *regexp.Regexp
	if p.Operator == "regex" {
		re, _ = regexp.Compile(p.Pattern) // checked when the rule was stored
	}
	return func(v string) bool {
		var match bool
		switch p.Operator {
		case "starts_with":
			match = strings.HasPrefix(v, p.Pattern)
		case "ends_with":
			match = strings.HasSuffix(v, p.Pattern)
		case "contains":
			match = strings.Contains(v, p.Pattern)
		case "regex":
			match = re != nil && re.MatchString(v)
		}
		return match != p.Negate
	}
}

func patternReason(rule model.RulesetRule) string {
	subject := map[string]string{
		model.RuleCommitMessagePattern:     "Commit message",
		model.RuleCommitAuthorEmailPattern: "Commit author email",
		model.RuleCommitterEmailPattern:    "Committer email",
		model.RuleBranchNamePattern:        "Branch name",
		model.RuleTagNamePattern:           "Tag name",
	}[rule.Type]
	p := rule.Pattern
	verb := map[string]string{"starts_with": "start with a matching pattern", "ends_with": "end with a matching pattern",
		"contains": "contain a matching pattern", "regex": "match a given regex pattern"}[p.Operator]
	must := "must"
	if p.Negate {
		must = "must not"
	}
	return subject + " " + must + " " + verb + ": " + p.Pattern
}

// Contexts are the names a required_status_checks rule requires, in order
// and without repeats.
func Contexts(c *model.StatusChecksRule) []string {
	var out []string
	for _, check := range c.Checks {
		if !slices.Contains(out, check.Context) {
			out = append(out, check.Context)
		}
	}
	return out
}

// ChecksReason words required checks that are not green ("" when all
// are), as GitHub does for pushes and merges.
func ChecksReason(required []string, states map[string]string) string {
	var missing, failing []string
	for _, c := range required {
		switch states[c] {
		case "success":
		case "", "pending":
			missing = append(missing, c)
		default:
			failing = append(failing, c)
		}
	}
	bad := len(missing) + len(failing)
	switch {
	case bad == 0:
		return ""
	case bad == 1 && len(failing) == 1:
		return "Required status check \"" + failing[0] + "\" is failing."
	case bad == 1:
		return "Required status check \"" + missing[0] + "\" is expected."
	case len(failing) > 0:
		return strconv.Itoa(bad) + " of " + strconv.Itoa(len(required)) + " required status checks are failing."
	}
	return strconv.Itoa(bad) + " of " + strconv.Itoa(len(required)) + " required status checks are expected."
}

// git runs a git command that sees the change's objects; exit status 1
// is reported as (nil, false, nil).
func (f *facts) git(ctx context.Context, args ...string) ([]byte, bool, error) {
	cmd := f.g.Cmd(ctx, f.env, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &gitrepo.GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return out, true, nil
}

// rangeArgs select the commits the change adds to the ref: those of the
// new value not in the old one (for an update) or not in any ref (for a
// creation).
func (f *facts) rangeArgs() []string {
	if f.creation() {
		return []string{f.ch.New, "--not", "--all"}
	}
	return []string{f.ch.New, "^" + f.ch.Old}
}

func (f *facts) fastForward(ctx context.Context) (bool, error) {
	if f.ff == nil {
		_, ok, err := f.git(ctx, "merge-base", "--is-ancestor", f.ch.Old, f.ch.New)
		if err != nil {
			return false, err
		}
		f.ff = &ok
	}
	return *f.ff, nil
}

func (f *facts) hasMerges(ctx context.Context) (bool, error) {
	if f.merges == nil {
		out, _, err := f.git(ctx, append([]string{"rev-list", "--min-parents=2", "--max-count=1"}, f.rangeArgs()...)...)
		if err != nil {
			return false, err
		}
		has := len(bytes.TrimSpace(out)) > 0
		f.merges = &has
	}
	return *f.merges, nil
}

// maxCheckedCommits bounds the commits a push's pattern rules read.
const maxCheckedCommits = 1000

func (f *facts) newCommits(ctx context.Context) ([]commitMeta, error) {
	if f.loaded {
		return f.commits, nil
	}
	args := append([]string{"log", "-z", "--max-count=" + strconv.Itoa(maxCheckedCommits), "--format=%H%x1f%ae%x1f%ce%x1f%B"}, f.rangeArgs()...)
	out, _, err := f.git(ctx, args...)
	if err != nil {
		return nil, err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		parts := strings.SplitN(string(rec), "\x1f", 4)
		if len(parts) != 4 {
			continue
		}
		f.commits = append(f.commits, commitMeta{sha: parts[0], authorEmail: parts[1], committerEmail: parts[2],
			message: strings.TrimRight(parts[3], "\n")})
	}
	f.loaded = true
	return f.commits, nil
}

// statuses are the newest state of each status context and check run
// name on the new commit ("success", "pending" or "failure").
func (f *facts) statuses(ctx context.Context) (map[string]string, error) {
	if f.states != nil {
		return f.states, nil
	}
	q := f.s.Store.R()
	out := map[string]string{}
	list, _, err := q.LatestCommitStatuses(ctx, f.repo.ID, f.ch.New, 1000, 0)
	if err != nil {
		return nil, err
	}
	for _, st := range list {
		switch st.State {
		case model.StatusSuccess:
			out[st.Context] = "success"
		case model.StatusPending:
			out[st.Context] = "pending"
		default:
			out[st.Context] = "failure"
		}
	}
	runs, err := q.LatestCheckRuns(ctx, f.repo.ID, f.ch.New)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		switch {
		case r.Status != model.CheckCompleted || r.Conclusion == nil:
			out[r.Name] = "pending"
		case *r.Conclusion == "success" || *r.Conclusion == "neutral" || *r.Conclusion == "skipped":
			out[r.Name] = "success"
		default:
			out[r.Name] = "failure"
		}
	}
	f.states = out
	return out, nil
}

// MergeRules is what the active rulesets on a branch ask of a pull
// request merged into it.
type MergeRules struct {
	Approvals    int      // the most approving reviews a pull_request rule requires
	DismissStale bool     // a pull_request rule dismisses stale approvals
	Contexts     []string // required status checks
	Strict       bool     // the head must be up to date with the branch
	Update       bool     // an update rule: only bypass actors update the branch
	CodeOwners   bool     // a pull_request rule asks a code owner's approval
}

// Empty reports whether the rules ask nothing.
func (m MergeRules) Empty() bool {
	return m.Approvals == 0 && len(m.Contexts) == 0 && !m.Strict && !m.Update && !m.CodeOwners
}

func (m *MergeRules) add(r *model.Ruleset) {
	for _, rule := range r.Rules {
		switch rule.Type {
		case model.RulePullRequest:
			if p := rule.PullRequest; p != nil {
				m.Approvals = max(m.Approvals, p.RequiredApprovals)
				m.DismissStale = m.DismissStale || p.DismissStaleReviewsOnPush
				m.CodeOwners = m.CodeOwners || p.RequireCodeOwnerReview
			}
		case model.RuleRequiredStatusChecks:
			if c := rule.StatusChecks; c != nil {
				for _, name := range Contexts(c) {
					if !slices.Contains(m.Contexts, name) {
						m.Contexts = append(m.Contexts, name)
					}
				}
				m.Strict = m.Strict || c.Strict && len(c.Checks) > 0
			}
		case model.RuleUpdate:
			m.Update = true
		}
	}
}

// MergeRules are the rules of the active rulesets on branch: for everyone
// (the mergeable state) and for the actor, who passes the rulesets they
// may bypass (in any mode: pull_request bypass is for merges).
func (s *Service) MergeRules(ctx context.Context, repo *model.Repo, branch string, actor Actor) (everyone, mine MergeRules, err error) {
	list, err := s.active(ctx, repo)
	if err != nil {
		return everyone, mine, err
	}
	b := s.bypasser(repo, actor)
	for _, r := range list {
		if r.Target != model.RulesetTargetBranch || !refMatches(r, "refs/heads/"+branch, repo.DefaultBranch) {
			continue
		}
		everyone.add(r)
		mode, err := b.mode(ctx, r)
		if err != nil {
			return everyone, mine, err
		}
		if mode == "" {
			mine.add(r)
		}
	}
	return everyone, mine, nil
}

package rulesets

import (
	"regexp"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Conditions are read as GitHub reads them: ref names with Ruby's
// File.fnmatch and FNM_PATHNAME ("*" and "?" stay within one
// "/"-separated segment, "**/" spans any number of segments, "[...]" is a
// class, "!" or "^" negating it), plus ~ALL and ~DEFAULT_BRANCH. A
// pattern that does not start with "refs/" is taken within the ruleset's
// namespace (refs/heads/ or refs/tags/).

// compileGlob turns a pattern into an anchored regular expression.
func compileGlob(p string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				if i+1 < len(p) && p[i+1] == '/' {
					i++
					b.WriteString("(?:[^/]*/)*")
					continue
				}
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				b.WriteString(regexp.QuoteMeta("["))
				continue
			}
			class := p[i+1 : i+1+end]
			i += end + 1
			neg := false
			if strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^") {
				neg, class = true, class[1:]
			}
			b.WriteString("[")
			if neg {
				b.WriteString("^/")
			}
			for _, r := range class {
				if r == '\\' || r == ']' || r == '[' || r == '^' {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
			b.WriteString("]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func globMatch(pattern, name string) bool {
	re, err := compileGlob(pattern)
	return err == nil && re.MatchString(name)
}

// namespace is the ref prefix of a target.
func namespace(target string) string {
	if target == model.RulesetTargetTag {
		return "refs/tags/"
	}
	return "refs/heads/"
}

// refPatternMatches matches one ref name pattern against a full ref.
func refPatternMatches(p, ref, target, defaultBranch string) bool {
	switch p {
	case "~ALL":
		return true
	case "~DEFAULT_BRANCH":
		return target == model.RulesetTargetBranch && ref == "refs/heads/"+defaultBranch
	}
	if !strings.HasPrefix(p, "refs/") {
		p = namespace(target) + p
	}
	return globMatch(p, ref)
}

// refMatches reports whether a ruleset's conditions select ref (a full ref
// name in the ruleset's namespace). A ruleset without a ref name condition
// selects nothing.
func refMatches(r *model.Ruleset, ref, defaultBranch string) bool {
	if !strings.HasPrefix(ref, namespace(r.Target)) || r.Conditions == nil || r.Conditions.RefName == nil {
		return false
	}
	c := r.Conditions.RefName
	in := false
	for _, p := range c.Include {
		if refPatternMatches(p, ref, r.Target, defaultBranch) {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	for _, p := range c.Exclude {
		if refPatternMatches(p, ref, r.Target, defaultBranch) {
			return false
		}
	}
	return true
}

// repoMatches reports whether an organization ruleset's repository name
// condition selects a repository (names compare without regard to case).
func repoMatches(c *model.RulesetConditions, name string) bool {
	if c == nil || c.RepositoryName == nil {
		return false
	}
	name = strings.ToLower(name)
	in := false
	for _, p := range c.RepositoryName.Include {
		if p == "~ALL" || globMatch(strings.ToLower(p), name) {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	for _, p := range c.RepositoryName.Exclude {
		if p == "~ALL" || globMatch(strings.ToLower(p), name) {
			return false
		}
	}
	return true
}

// orgMatches reports whether an enterprise ruleset's organization
// condition selects an organization: by id, or by login pattern (logins
// compare without regard to case; ~ALL is every organization).
func orgMatches(c *model.RulesetConditions, org *model.Account) bool {
	if c == nil || org == nil {
		return false
	}
	if c.OrganizationIDs != nil {
		return slices.Contains(c.OrganizationIDs, org.ID)
	}
	if c.OrganizationName == nil {
		return false
	}
	login := strings.ToLower(org.Login)
	in := false
	for _, p := range c.OrganizationName.Include {
		if p == "~ALL" || globMatch(strings.ToLower(p), login) {
			in = true
			break
		}
	}
	if !in {
		return false
	}
	for _, p := range c.OrganizationName.Exclude {
		if p == "~ALL" || globMatch(strings.ToLower(p), login) {
			return false
		}
	}
	return true
}

package search

import (
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// The qualifiers of each kind of search, as GitHub documents them
// ("Searching issues and pull requests", "Searching for repositories",
// "Searching users"). A qualifier hubd keeps no data for answers as that
// data would: no account has followers, no issue has a type, a
// linked pull request or a project, no pull request is queued.

var issueKind, repoKind, userKind *kind

func init() {
	issueKind = &kind{
		textIn:   []string{"title", "body", "comments"},
		inFields: map[string]string{"title": "title", "body": "body", "comments": "comments", "comment": "comments"},
		sorts: map[string]bool{"comments": true, "reactions": true, "reactions-+1": true, "reactions--1": true,
			"reactions-smile": true, "reactions-thinking_face": true, "reactions-heart": true, "reactions-tada": true,
			"reactions-laugh": true, "reactions-confused": true, "reactions-hooray": true, "reactions-eyes": true,
			"reactions-rocket": true, "interactions": true, "created": true, "updated": true},
		group: scopeGroup,
	}
	pulls := func(pull bool) func(c *compiler) store.SearchCond {
		return func(c *compiler) store.SearchCond {
			c.typed = true
			return boolLeaf("pull", pull)
		}
	}
	entity := map[string]func(c *compiler) store.SearchCond{"issue": pulls(false), "pr": pulls(true), "pull-request": pulls(true)}
	is := map[string]func(c *compiler) store.SearchCond{
		"issue": pulls(false), "pr": pulls(true), "pull-request": pulls(true),
		"open": always(textLeaf("state", "open")), "closed": always(textLeaf("state", "closed")),
		"merged": always(store.Leaf("merged")), "unmerged": always(store.Leaf("unmerged")),
		"draft":  always(boolLeaf("draft", true)),
		"locked": always(boolLeaf("locked", true)), "unlocked": always(boolLeaf("locked", false)),
		"public": always(textLeaf("visibility", "public")), "private": always(textLeaf("visibility", "private")),
		"internal": always(textLeaf("visibility", "internal")),
		"blocked":  always(store.Leaf("blocked")), "blocking": always(store.Leaf("blocking")),
		"queued": always(store.Bool(false)), // hubd has no merge queue
	}
	person := func(field string) qualFunc {
		return func(c *compiler, v string) (store.SearchCond, error) { return c.person(field, v) }
	}
	issueKind.quals = map[string]qualFunc{
		"repo": func(c *compiler, v string) (store.SearchCond, error) { return c.repo(v) },
		"user": func(c *compiler, v string) (store.SearchCond, error) { return c.owner(v) },
		"org":  func(c *compiler, v string) (store.SearchCond, error) { return c.owner(v) },
		"is":   oneOf(is),
		"type": func(c *compiler, v string) (store.SearchCond, error) {
			if f, ok := entity[strings.ToLower(unquote(v))]; ok {
				return f(c), nil
			}
			return textLeaf("issue_type", unquote(v)), nil // an issue type, by name
		},
		"state": oneOf(map[string]func(c *compiler) store.SearchCond{
			"open": always(textLeaf("state", "open")), "closed": always(textLeaf("state", "closed")),
			"merged": always(store.Leaf("merged")),
		}),
		"author": func(c *compiler, v string) (store.SearchCond, error) {
			if name, ok := strings.CutPrefix(unquote(v), "app/"); ok {
				v = name + "[bot]" // an integration's account
			}
			return c.person("author", v)
		},
		"assignee": func(c *compiler, v string) (store.SearchCond, error) {
			if unquote(v) == "*" {
				return store.Leaf("assigned"), nil
			}
			return c.person("assignee", v)
		},
		"mentions":              person("mentions"),
		"commenter":             person("commenter"),
		"involves":              person("involves"),
		"reviewed-by":           person("reviewed_by"),
		"review-requested":      person("review_requested"),
		"user-review-requested": person("user_review_requested"),
		"team-review-requested": func(c *compiler, v string) (store.SearchCond, error) { return c.team(v) },
		"team":                  func(*compiler, string) (store.SearchCond, error) { return store.Bool(false), nil }, // team mentions are not recorded
		"label": func(_ *compiler, v string) (store.SearchCond, error) {
			names := splitList(v)
			if len(names) == 0 {
				return store.SearchCond{}, errNotQualifier
			}
			c := store.Leaf("label")
			for _, n := range names {
				c.Texts = append(c.Texts, strings.ToLower(n))
			}
			return c, nil
		},
		"no": oneOf(map[string]func(c *compiler) store.SearchCond{
			"label":     always(store.CondNeg(store.Leaf("labeled"))),
			"milestone": always(store.CondNeg(store.Leaf("milestoned"))),
			"assignee":  always(store.CondNeg(store.Leaf("assigned"))),
			"project":   always(store.Bool(true)), // hubd has no projects
		}),
		"milestone":    text("milestone"),
		"project":      func(*compiler, string) (store.SearchCond, error) { return store.Bool(false), nil },
		"head":         text("head"),
		"base":         text("base"),
		"created":      dates("created"),
		"updated":      dates("updated"),
		"closed":       dates("closed"),
		"merged":       dates("merged_at"),
		"comments":     counts("comments"),
		"reactions":    counts("reactions"),
		"interactions": counts("interactions"),
		"reason": oneOf(map[string]func(c *compiler) store.SearchCond{
			"completed": always(textLeaf("reason", "completed")), "not planned": always(textLeaf("reason", "not_planned")),
			"not_planned": always(textLeaf("reason", "not_planned")), "duplicate": always(textLeaf("reason", "duplicate")),
		}),
		"review": oneOf(map[string]func(c *compiler) store.SearchCond{
			"none": always(textLeaf("review", "none")), "required": always(textLeaf("review", "required")),
			"approved": always(textLeaf("review", "approved")), "changes_requested": always(textLeaf("review", "changes_requested")),
		}),
		"status": oneOf(map[string]func(c *compiler) store.SearchCond{
			"success": always(textLeaf("status", "success")), "failure": always(textLeaf("status", "failure")),
			"pending": always(textLeaf("status", "pending")),
		}),
		"draft":    flag("draft"),
		"archived": flag("archived"),
		"language": text("language"),
		"linked": oneOf(map[string]func(c *compiler) store.SearchCond{
			// hubd records no closing references: nothing is linked.
			"pr": always(store.Bool(false)), "issue": always(store.Bool(false)),
		}),
	}

	repoKind = &kind{
		textIn:   []string{"name", "description", "topics"},
		inFields: map[string]string{"name": "name", "description": "description", "topics": "topics", "readme": ""},
		sorts:    map[string]bool{"stars": true, "forks": true, "help-wanted-issues": true, "updated": true},
		group:    scopeGroup,
		finish:   withoutForks,
	}
	repoKind.quals = map[string]qualFunc{
		"repo": func(c *compiler, v string) (store.SearchCond, error) { return c.repo(v) },
		"user": func(c *compiler, v string) (store.SearchCond, error) { return c.owner(v) },
		"org":  func(c *compiler, v string) (store.SearchCond, error) { return c.owner(v) },
		"is": oneOf(map[string]func(c *compiler) store.SearchCond{
			"public": always(textLeaf("visibility", "public")), "private": always(textLeaf("visibility", "private")),
			"internal":    always(textLeaf("visibility", "internal")),
			"sponsorable": always(store.Bool(false)), // hubd has no sponsors
		}),
		"fork":     forkQual,
		"archived": flag("archived"),
		"template": flag("template"),
		"mirror": func(_ *compiler, v string) (store.SearchCond, error) {
			b, err := boolValue(v)
			return store.Bool(!b), err // hubd mirrors nothing
		},
		"created":            dates("created"),
		"pushed":             dates("pushed"),
		"size":               counts("size"),
		"forks":              counts("forks"),
		"topics":             counts("topics"),
		"good-first-issues":  counts("good_first_issues"),
		"help-wanted-issues": counts("help_wanted_issues"),
		"stars":              counts("stars"),
		"followers":          func(_ *compiler, v string) (store.SearchCond, error) { return constRange(v, 0) },
		"topic":              text("topic"),
		"language":           text("language"),
		"license":            text("license"),
	}

	userKind = &kind{
		textIn:   []string{"login", "email"},
		inFields: map[string]string{"login": "login", "username": "login", "name": "name", "fullname": "name", "email": "email"},
		sorts:    map[string]bool{"followers": true, "repositories": true, "joined": true},
		group: func(key, _ string) string {
			if key == "user" || key == "org" {
				return "account"
			}
			return ""
		},
	}
	login := func(_ *compiler, v string) (store.SearchCond, error) {
		c := store.Leaf("login")
		c.Texts = []string{strings.ToLower(unquote(v))}
		return c, nil
	}
	userKind.quals = map[string]qualFunc{
		"type": oneOf(map[string]func(c *compiler) store.SearchCond{
			"user": always(textLeaf("type", string(model.TypeUser))), "users": always(textLeaf("type", string(model.TypeUser))),
			"org": always(textLeaf("type", string(model.TypeOrganization))), "organization": always(textLeaf("type", string(model.TypeOrganization))),
		}),
		"user":      login,
		"org":       login,
		"fullname":  text("fullname"),
		"location":  text("location"),
		"language":  text("language"),
		"repos":     counts("repos"),
		"created":   dates("created"),
		"followers": func(_ *compiler, v string) (store.SearchCond, error) { return constRange(v, 0) },
		"is": oneOf(map[string]func(c *compiler) store.SearchCond{
			"sponsorable": always(store.Bool(false)),
		}),
	}
}

// team is team-review-requested:ORG/TEAM; a team that does not exist is
// answered like a user that does not.
func (c *compiler) team(v string) (store.SearchCond, error) {
	org, slug, ok := strings.Cut(unquote(v), "/")
	if !ok {
		c.badPeople = true
		return store.Bool(false), nil
	}
	a, err := c.account(org)
	if err != nil {
		return store.SearchCond{}, err
	}
	if a == nil || !a.IsOrg() {
		c.badPeople = true
		return store.Bool(false), nil
	}
	t, err := c.st.TeamBySlug(c.ctx, a.ID, slug)
	if errors.Is(err, model.ErrNotFound) {
		c.badPeople = true
		return store.Bool(false), nil
	}
	if err != nil {
		return store.SearchCond{}, err
	}
	return idsLeaf("team_review_requested", t.ID), nil
}

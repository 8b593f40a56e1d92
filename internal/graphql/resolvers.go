package graphql

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Values the resolvers pass between levels. Accounts are *model.Account
// (User or Organization by their type).

// repoObj is a repository the viewer may see, with their permission.
type repoObj struct {
	v    *store.RepoView
	perm authz.Permission
	url  string // its HTML URL, once repoURL made it
	// files is what its default branch holds, once filesOf read it.
	files *repoFiles
}

// repoURL is the repository's HTML URL (made once per object: every issue
// of a list starts its url with it).
func (a *API) repoURL(o *repoObj) string {
	if o.url == "" {
		o.url = a.d.URLs.RepoHTMLURL(o.v.Repo)
	}
	return o.url
}

// refObj is a ref of a repository: a branch unless prefix says otherwise.
type refObj struct {
	repo *repoObj
	name string
	// prefix is the ref's namespace ("" for refs/heads/); oid, when set,
	// is the object it points to (refs listed by Repository.refs).
	prefix, oid string
}

// fullName is the ref's full name (refs/heads/main).
func (o *refObj) fullName() string { return o.prefixOrHeads() + o.name }

func (o *refObj) prefixOrHeads() string {
	if o.prefix == "" {
		return "refs/heads/"
	}
	return o.prefix
}

// rateObj is the rateLimit object.
type rateObj struct {
	limit, remaining, used int
	reset                  time.Time
}

type queryRoot struct{}

func typeOf(v any) string {
	switch t := v.(type) {
	case *model.Account:
		if t.IsOrg() {
			return "Organization"
		}
		return "User"
	case *repoObj:
		return "Repository"
	case *refObj:
		return "Ref"
	case *rateObj:
		return "RateLimit"
	case *issueObj:
		return "Issue"
	case *labelObj:
		return "Label"
	case *milestoneObj:
		return "Milestone"
	case *commentObj:
		return "IssueComment"
	case *pullObj:
		return "PullRequest"
	case *reactionGroup:
		return "ReactionGroup"
	case *commitObj:
		return "Commit"
	case *prCommit:
		return "PullRequestCommit"
	case *rollup:
		return "StatusCheckRollup"
	case *statusObj:
		return "StatusContext"
	case *checkRunObj:
		return "CheckRun"
	case *checkSuiteObj:
		return "CheckSuite"
	case *reviewRequest:
		return "ReviewRequest"
	case *reviewObj:
		return "PullRequestReview"
	case *model.Team:
		return "Team"
	case *releaseObj:
		return "Release"
	case *ruleParams:
		return t.typ
	case *model.App:
		return "App"
	case *model.Gist:
		return "Gist"
	case *blobObj:
		return "Blob"
	case *treeObj:
		return "Tree"
	case *tagObj:
		return "Tag"
	case *sigObj:
		return t.typ
	case *model.IssueType:
		return "IssueType"
	case *pinnedObj:
		return "PinnedIssue"
	case *linkedObj:
		return "LinkedBranch"
	case *projectObj:
		return "ProjectV2"
	case *projectItemObj:
		return "ProjectV2Item"
	case *selectValueObj:
		return "ProjectV2ItemFieldSingleSelectValue"
	case *valueObj:
		return t.typeName()
	case *workflowRunObj:
		return "WorkflowRun"
	case *workflowOf:
		return "Workflow"
	case *contentValueObj:
		return t.typ
	case *iterationConfig:
		return "ProjectV2IterationFieldConfiguration"
	case *iterationObj:
		return "ProjectV2IterationFieldIteration"
	case *draftObj:
		return "DraftIssue"
	case *projectFieldObj:
		switch t.f.DataType {
		case "single_select":
			return "ProjectV2SingleSelectField"
		case "iteration":
			return "ProjectV2IterationField"
		}
		return "ProjectV2Field"
	case *optionObj:
		return "ProjectV2SingleSelectFieldOption"
	case *timelineObj:
		return t.kind.typ
	}
	return discussionTypeOf(v)
}

func notFound(format string, args ...any) *engine.Error {
	return engine.Errorf("NOT_FOUND", format, args...)
}

// field registers a per-parent resolver of plain values.
func (a *API) field(typ, name string, f func(ctx context.Context, p any, args map[string]any) (any, error)) {
	if typ == "Mutation" && authz.WritesRepository(authz.GraphQLPermissions(typ, name), true, "POST") {
		// The repository a mutation acts on must lie inside the caller's
		// grant (writeTarget), as for REST's writes.
		inner := f
		f = func(ctx context.Context, p any, args map[string]any) (any, error) {
			return inner(context.WithValue(ctx, writesKey{}, true), p, args)
		}
	}
	a.schema.Resolve(typ, name, engine.Each(f))
}

// writesKey marks the context of a mutation that writes to the repository
// it names.
type writesKey struct{}

// readOnly is ctx for looking up a repository a mutation only reads (a
// pull request's head repository).
func readOnly(ctx context.Context) context.Context { return context.WithValue(ctx, writesKey{}, false) }

// writeTarget refuses the repository a writing mutation acts on when it
// lies outside the caller's grant (authz.Authorize, the resolver REST's
// writes go through too): an installation or job token on another
// account's repository, a fine-grained token on one it does not select.
// A classic or OAuth token's missing scope is left to the services'
// FORBIDDEN (GitHub's GraphQL answers it as a scope error, not the REST
// 404 Authorize gives).
func writeTarget(ctx context.Context, o *repoObj) error {
	c := from(ctx).caller
	if w, _ := ctx.Value(writesKey{}).(bool); !w || c.Kind == authz.ClassicPAT || c.Kind == authz.OAuthApp {
		return nil
	}
	_, err := authz.Authorize(c, o.v.Repo, o.v.Facts, true, authz.None)
	return gqlError(err)
}

func (a *API) register() {
	a.registerQuery()
	a.registerAccounts()
	a.registerRepository()
	a.registerIssues()
	a.registerPulls()
	a.registerReactions()
	a.registerOwnerRepositories()
	a.registerPullView()
	a.registerPullFiles()
	a.registerIsRequired()
	a.registerClosing()
	a.registerTimeline()
	a.registerProjectItems()
	a.registerSearch()
	a.registerReleases()
	a.registerPeople()
	a.registerRepoFiles()
	a.registerRepoProjects()
	a.registerGitObjects()
	a.registerDiscussions()
	a.registerDiscussionMutations()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (a *API) registerQuery() {
	a.field("Query", "id", func(ctx context.Context, _ any, _ map[string]any) (any, error) {
		return base64.StdEncoding.EncodeToString([]byte("05:Query")), nil
	})
	a.field("Query", "viewer", func(ctx context.Context, _ any, _ map[string]any) (any, error) {
		c := from(ctx).caller
		if c.User == nil {
			// An installation token has no user: GitHub answers the viewer
			// as an error.
			return nil, engine.Errorf("FORBIDDEN", "Resource not accessible by integration")
		}
		return a.account(ctx, c.User.ID)
	})
	a.field("Query", "user", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		login, _ := args["login"].(string)
		acc, err := a.d.Store.R().AccountByLogin(ctx, login)
		if errors.Is(err, model.ErrNotFound) || (err == nil && acc.IsOrg()) {
			return nil, notFound("Could not resolve to a User with the login of '%s'.", login)
		}
		return acc, err
	})
	a.field("Query", "organization", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		login, _ := args["login"].(string)
		acc, err := a.d.Store.R().AccountByLogin(ctx, login)
		if errors.Is(err, model.ErrNotFound) || (err == nil && !acc.IsOrg()) {
			return nil, notFound("Could not resolve to an Organization with the login of '%s'.", login)
		}
		return acc, err
	})
	a.field("Query", "repositoryOwner", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		login, _ := args["login"].(string)
		acc, err := a.d.Store.R().AccountByLogin(ctx, login)
		if errors.Is(err, model.ErrNotFound) {
			return nil, notFound("Could not resolve to a RepositoryOwner with the login of '%s'.", login)
		}
		return acc, err
	})
	a.field("Query", "repository", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		owner, _ := args["owner"].(string)
		name, _ := args["name"].(string)
		follow, _ := args["followRenames"].(bool)
		return a.repoByName(ctx, owner, name, follow)
	})
	a.field("Query", "rateLimit", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		rq := from(ctx)
		key, class := rateKey(rq)
		st := a.d.Limiter.Peek(key, class, "graphql")
		return &rateObj{limit: st.Limit, remaining: st.Remaining, used: st.Used, reset: st.Reset}, nil
	})
	a.schema.Resolve("Query", "node", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		id, _ := b.Args["id"].(string)
		v, err := a.nodes(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i := range out {
			out[i] = v[0]
			if v[0] == nil {
				out[i] = notFound("Could not resolve to a node with the global id of '%s'", id)
			}
		}
		return out, nil
	})
	a.schema.Resolve("Query", "nodes", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		raw, _ := b.Args["ids"].([]any)
		if len(raw) > 100 {
			return nil, engine.Errorf("EXCESSIVE_PAGINATION", "You may not ask for more than 100 nodes at once; you asked for %d.", len(raw))
		}
		ids := make([]string, len(raw))
		for i, r := range raw {
			ids[i], _ = r.(string)
		}
		v, err := a.nodes(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i := range out {
			out[i] = v
		}
		return out, nil
	})
	a.field("RateLimit", "cost", func(ctx context.Context, p any, _ map[string]any) (any, error) { return from(ctx).cost.Points, nil })
	a.field("RateLimit", "limit", func(ctx context.Context, p any, _ map[string]any) (any, error) { return p.(*rateObj).limit, nil })
	a.field("RateLimit", "nodeCount", func(ctx context.Context, p any, _ map[string]any) (any, error) { return from(ctx).cost.Nodes, nil })
	a.field("RateLimit", "remaining", func(ctx context.Context, p any, _ map[string]any) (any, error) { return p.(*rateObj).remaining, nil })
	a.field("RateLimit", "used", func(ctx context.Context, p any, _ map[string]any) (any, error) { return p.(*rateObj).used, nil })
	a.field("RateLimit", "resetAt", func(ctx context.Context, p any, _ map[string]any) (any, error) { return p.(*rateObj).reset, nil })
}

func rateKey(rq *request) (string, string) {
	addr := ""
	if rq.r != nil {
		addr = rq.r.RemoteAddr
	}
	return ratelimit.KeyFor(rq.caller, addr)
}

func (a *API) account(ctx context.Context, id int64) (*model.Account, error) {
	return a.d.Store.R().AccountByID(ctx, id)
}

// repoByName finds a repository the viewer may see (followRenames: an old
// name leads to the renamed repository, as GitHub does).
func (a *API) repoByName(ctx context.Context, owner, name string, follow bool) (any, error) {
	c := from(ctx).caller
	q := a.d.Store.R()
	miss := notFound("Could not resolve to a Repository with the name '%s/%s'.", owner, name)
	v, err := q.RepoByName(ctx, owner, name, c.UserID())
	if errors.Is(err, model.ErrNotFound) && follow {
		id, rerr := q.RepoRedirect(ctx, owner, name)
		if rerr != nil {
			if errors.Is(rerr, model.ErrNotFound) {
				return nil, miss
			}
			return nil, rerr
		}
		v, err = q.RepoByID(ctx, id, c.UserID())
	}
	if errors.Is(err, model.ErrNotFound) {
		return nil, miss
	}
	if err != nil {
		return nil, err
	}
	perm := authz.RepoPermission(c, v.Repo, v.Facts)
	if !authz.CanSee(perm) {
		return nil, miss
	}
	return &repoObj{v: v, perm: perm}, nil
}

// reposByID loads repositories by id for the viewer; those they may not see
// are absent from the map.
func (a *API) reposByID(ctx context.Context, ids []int64) (map[int64]*repoObj, error) {
	c := from(ctx).caller
	views, err := a.d.Store.R().ReposByID(ctx, ids, c.UserID())
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*repoObj, len(views))
	for id, v := range views {
		if p := authz.RepoPermission(c, v.Repo, v.Facts); authz.CanSee(p) {
			out[id] = &repoObj{v: v, perm: p}
		}
	}
	return out, nil
}

// decodeNodeID reads GitHub's global id format (wire.NodeID): a type
// prefix, "_", and the base64 of the MessagePack array [0, id].
func decodeNodeID(s string) (prefix string, id int64, ok bool) {
	prefix, enc, found := strings.Cut(s, "_")
	if !found {
		return "", 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || len(b) < 3 || b[0] != 0x92 || b[1] != 0x00 {
		return "", 0, false
	}
	b = b[2:]
	var u uint64
	switch {
	case b[0] < 0x80 && len(b) == 1:
		u = uint64(b[0])
	case b[0] == 0xcc && len(b) == 2:
		u = uint64(b[1])
	case b[0] == 0xcd && len(b) == 3:
		u = uint64(binary.BigEndian.Uint16(b[1:]))
	case b[0] == 0xce && len(b) == 5:
		u = uint64(binary.BigEndian.Uint32(b[1:]))
	case b[0] == 0xcf && len(b) == 9:
		u = binary.BigEndian.Uint64(b[1:])
	default:
		return "", 0, false
	}
	if u == 0 || u > 1<<62 || wire.NodeID(prefix, int64(u)) != s {
		return "", 0, false
	}
	return prefix, int64(u), true
}

// nodes resolves global ids, nil where there is nothing the viewer may see.
// Ids of one kind load in one query.
func (a *API) nodes(ctx context.Context, ids []string) ([]any, error) {
	out := make([]any, len(ids))
	var repoIDs, issueIDs, gistIDs []int64
	linked := false     // LinkedBranch ids among them
	projectish := false // Projects (v2) ids among them
	for i, s := range ids {
		prefix, id, ok := decodeNodeID(s)
		if !ok {
			continue
		}
		switch prefix {
		case "U", "O":
			acc, err := a.account(ctx, id)
			if errors.Is(err, model.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if wire.NodePrefix(acc) == prefix {
				out[i] = acc
			}
		case "R":
			repoIDs = append(repoIDs, id)
		case "I", "PR":
			issueIDs = append(issueIDs, id)
		case "G":
			gistIDs = append(gistIDs, id)
		case "LB":
			linked = true
		case "PVT", "PVTI", "DI":
			projectish = true
		}
	}
	if projectish {
		if err := a.projectNodes(ctx, ids, out); err != nil {
			return nil, err
		}
	}
	if err := a.discussionNodes(ctx, ids, out); err != nil {
		return nil, err
	}
	if linked {
		lbs, err := a.linkedByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i, lb := range lbs {
			if lb != nil {
				out[i] = lb
			}
		}
	}
	if len(gistIDs) > 0 {
		// Gists are unlisted, not private: whoever has the id sees one.
		byID, err := a.d.Store.R().GistsByID(ctx, gistIDs)
		if err != nil {
			return nil, err
		}
		for i, s := range ids {
			if prefix, id, ok := decodeNodeID(s); ok && prefix == "G" && byID[id] != nil && byID[id].Head != "" {
				out[i] = byID[id]
			}
		}
	}
	issueAt := map[int64]*model.Issue{}
	pullAt := map[int64]*model.Pull{}
	if len(issueIDs) > 0 {
		list, err := a.d.Store.R().IssuesByID(ctx, issueIDs)
		if err != nil {
			return nil, err
		}
		var pullIDs []int64
		for _, is := range list {
			issueAt[is.ID] = is
			repoIDs = append(repoIDs, is.RepoID)
			if is.IsPull {
				pullIDs = append(pullIDs, is.ID)
			}
		}
		if len(pullIDs) > 0 {
			if pullAt, err = a.d.Store.R().PullsByIssueID(ctx, pullIDs); err != nil {
				return nil, err
			}
		}
	}
	if len(repoIDs) > 0 {
		repos, err := a.reposByID(ctx, repoIDs)
		if err != nil {
			return nil, err
		}
		for i, s := range ids {
			prefix, id, ok := decodeNodeID(s)
			switch {
			case ok && prefix == "R" && repos[id] != nil:
				out[i] = repos[id]
			case ok && prefix == "I" && issueAt[id] != nil && !issueAt[id].IsPull && repos[issueAt[id].RepoID] != nil:
				out[i] = &issueObj{is: issueAt[id], repo: repos[issueAt[id].RepoID]}
			case ok && prefix == "PR" && issueAt[id] != nil && pullAt[id] != nil && repos[issueAt[id].RepoID] != nil:
				pr := pullAt[id]
				if pr.Issue == nil {
					pr.Issue = issueAt[id]
				}
				out[i] = a.pullOf(pr, repos[issueAt[id].RepoID])
			}
		}
	}
	return out, nil
}

func (a *API) registerAccounts() {
	for _, typ := range []string{"User", "Organization"} {
		a.field(typ, "id", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			acc := p.(*model.Account)
			return wire.NodeID(wire.NodePrefix(acc), acc.ID), nil
		})
		a.field(typ, "databaseId", func(ctx context.Context, p any, _ map[string]any) (any, error) { return p.(*model.Account).ID, nil })
		a.field(typ, "login", func(ctx context.Context, p any, _ map[string]any) (any, error) { return p.(*model.Account).Login, nil })
		a.field(typ, "name", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return strPtr(p.(*model.Account).Name), nil
		})
		a.field(typ, "avatarUrl", func(ctx context.Context, p any, args map[string]any) (any, error) {
			u := a.d.URLs.AvatarURL(p.(*model.Account))
			if n, ok := intArg(args, "size"); ok && n > 0 {
				u += "&s=" + strconv.Itoa(n)
			}
			return u, nil
		})
		a.field(typ, "url", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return a.d.URLs.Web + "/" + p.(*model.Account).Login, nil
		})
		a.field(typ, "resourcePath", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return "/" + p.(*model.Account).Login, nil
		})
		a.field(typ, "location", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return strPtr(p.(*model.Account).Location), nil
		})
		a.field(typ, "websiteUrl", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return strPtr(p.(*model.Account).Blog), nil
		})
		a.field(typ, "twitterUsername", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return strPtr(p.(*model.Account).TwitterUsername), nil
		})
		a.field(typ, "createdAt", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return p.(*model.Account).CreatedAt, nil
		})
		a.field(typ, "updatedAt", func(ctx context.Context, p any, _ map[string]any) (any, error) {
			return p.(*model.Account).UpdatedAt, nil
		})
		a.field(typ, "repository", func(ctx context.Context, p any, args map[string]any) (any, error) {
			name, _ := args["name"].(string)
			follow, _ := args["followRenames"].(bool)
			v, err := a.repoByName(ctx, p.(*model.Account).Login, name, follow)
			if e, ok := err.(*engine.Error); ok && e.Type == "NOT_FOUND" {
				return nil, nil // a field of an owner: null, as GitHub answers it
			}
			return v, err
		})
	}
	a.field("User", "email", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		// GitHub shows a user's email to others only when it is public;
		// hubd's account email is the public one (as REST's `email`).
		return p.(*model.Account).Email, nil
	})
	a.field("Organization", "email", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		return strPtr(p.(*model.Account).Email), nil
	})
	a.field("User", "bio", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		return strPtr(p.(*model.Account).Bio), nil
	})
	a.field("User", "company", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		return strPtr(p.(*model.Account).Company), nil
	})
	a.field("User", "isSiteAdmin", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		return p.(*model.Account).SiteAdmin, nil
	})
	a.field("User", "isViewer", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		return from(ctx).caller.UserID() == p.(*model.Account).ID, nil
	})
	a.full("Organization", "description", func(acc *model.Account) any { return strPtr(acc.Description) })
}

// full registers a field read from the whole account: accounts that came
// slim (issue authors, assignees) are loaded for the batch in one query.
func (a *API) full(typ, name string, f func(acc *model.Account) any) {
	a.schema.Resolve(typ, name, func(ctx context.Context, b *engine.Batch) ([]any, error) {
		ids := make([]int64, 0, len(b.Parents))
		for _, p := range b.Parents {
			ids = append(ids, p.(*model.Account).ID)
		}
		accs, err := a.d.Store.R().AccountsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			acc := accs[p.(*model.Account).ID]
			if acc == nil {
				acc = p.(*model.Account)
			}
			out[i] = f(acc)
		}
		return out, nil
	})
}

func (a *API) registerRepository() {
	r := func(name string, f func(ctx context.Context, o *repoObj) (any, error)) {
		a.field("Repository", name, func(ctx context.Context, p any, _ map[string]any) (any, error) { return f(ctx, p.(*repoObj)) })
	}
	r("id", func(_ context.Context, o *repoObj) (any, error) { return wire.NodeID("R", o.v.Repo.ID), nil })
	r("databaseId", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.ID, nil })
	r("name", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.Name, nil })
	r("nameWithOwner", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.FullName(), nil })
	r("owner", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.Owner, nil })
	r("description", func(_ context.Context, o *repoObj) (any, error) { return strPtr(o.v.Repo.Description), nil })
	r("url", func(_ context.Context, o *repoObj) (any, error) { return a.d.URLs.RepoHTMLURL(o.v.Repo), nil })
	r("resourcePath", func(_ context.Context, o *repoObj) (any, error) { return "/" + o.v.Repo.FullName(), nil })
	r("homepageUrl", func(_ context.Context, o *repoObj) (any, error) { return strPtr(o.v.Repo.Homepage), nil })
	r("sshUrl", func(_ context.Context, o *repoObj) (any, error) { return a.d.URLs.SSHURL(o.v.Repo), nil })
	r("isPrivate", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.Private(), nil })
	r("isArchived", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.Archived, nil })
	r("isFork", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.ParentID != 0, nil })
	r("isTemplate", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.IsTemplate, nil })
	r("isEmpty", func(ctx context.Context, o *repoObj) (any, error) {
		if a.d.Git == nil {
			return true, nil
		}
		g, err := a.d.GitRepo(ctx, o.v.Repo)
		if err != nil {
			return nil, err
		}
		return deps.IsEmpty(ctx, g)
	})
	r("visibility", func(_ context.Context, o *repoObj) (any, error) {
		return strings.ToUpper(string(o.v.Repo.Visibility)), nil
	})
	r("hasIssuesEnabled", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.HasIssues, nil })
	r("hasWikiEnabled", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.HasWiki, nil })
	r("hasProjectsEnabled", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.HasProjects, nil })
	r("hasDiscussionsEnabled", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.HasDiscussions, nil })
	r("mergeCommitAllowed", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.AllowMergeCommit, nil })
	r("rebaseMergeAllowed", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.AllowRebaseMerge, nil })
	r("squashMergeAllowed", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.AllowSquashMerge, nil })
	r("autoMergeAllowed", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.AllowAutoMerge, nil })
	r("deleteBranchOnMerge", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.DeleteBranchOnMerge, nil })
	r("createdAt", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.CreatedAt, nil })
	r("updatedAt", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.UpdatedAt, nil })
	r("pushedAt", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.PushedAt, nil })
	r("archivedAt", func(_ context.Context, o *repoObj) (any, error) {
		// hubd does not record when a repository was archived.
		if o.v.Repo.Archived {
			return o.v.Repo.UpdatedAt, nil
		}
		return nil, nil
	})
	r("stargazerCount", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.StargazersCount, nil })
	r("forkCount", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.ForksCount, nil })
	r("viewerCanAdminister", func(_ context.Context, o *repoObj) (any, error) { return o.perm >= authz.Admin, nil })
	r("viewerPermission", func(_ context.Context, o *repoObj) (any, error) { return permissionEnum(o.perm), nil })
	r("defaultBranchRef", func(ctx context.Context, o *repoObj) (any, error) {
		if a.d.Git == nil || o.v.Repo.DefaultBranch == "" {
			return nil, nil
		}
		g, err := a.d.GitRepo(ctx, o.v.Repo)
		if err != nil {
			return nil, err
		}
		if _, err := g.Info(ctx, "refs/heads/"+o.v.Repo.DefaultBranch); err != nil {
			return nil, nil // an empty repository has no default branch yet
		}
		return &refObj{repo: o, name: o.v.Repo.DefaultBranch}, nil
	})
	a.schema.Resolve("Repository", "parent", a.linkedRepos(func(r *model.Repo) int64 { return r.ParentID }))

	a.field("Ref", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*refObj)
		return wire.GitNodeID("REF", o.repo.v.Repo.ID, o.fullName()), nil
	})
	a.field("Ref", "name", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*refObj).name, nil })
	a.field("Ref", "prefix", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*refObj).prefixOrHeads(), nil })
	a.field("Ref", "repository", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*refObj).repo, nil })
}

func permissionEnum(p authz.Permission) any {
	switch p {
	case authz.Admin:
		return "ADMIN"
	case authz.Maintain:
		return "MAINTAIN"
	case authz.Write:
		return "WRITE"
	case authz.Triage:
		return "TRIAGE"
	case authz.Read:
		return "READ"
	}
	return nil
}

func strPtr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// intArg reads an Int argument (a literal is int64, a variable json.Number).
func intArg(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int64:
		return int(v), true
	case int:
		return v, true
	case float64:
		return int(v), true
	case interface{ Int64() (int64, error) }:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

// registerOwnerRepositories serves RepositoryOwner.repositories on users
// and organizations: the owner's repositories (and, for a user, those they
// collaborate on) that the viewer may see.
func (a *API) registerOwnerRepositories() {
	a.connectionTypes("RepositoryConnection", "RepositoryEdge")
	for _, typ := range []string{"User", "Organization"} {
		a.schema.Resolve(typ, "repositories", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
			owner, args := p.(*model.Account), b.Args
			w, err := pageWindow(args, "repositories", engine.SelectsItems(b.Field.SelectionSet))
			if err != nil {
				return nil, err
			}
			c := from(ctx).caller
			f := store.RepoQuery{Viewer: deps.ViewerOf(c)}
			affs := stringList(args["ownerAffiliations"])
			if _, given := args["ownerAffiliations"]; !given || args["ownerAffiliations"] == nil {
				affs = []string{"OWNER", "COLLABORATOR"}
			}
			for _, aff := range affs {
				switch aff {
				case "OWNER":
					f.OwnedBy = owner.ID
				case "COLLABORATOR":
					if !owner.IsOrg() {
						f.CollaboratorOf = owner.ID
					}
				case "ORGANIZATION_MEMBER":
					if owner.ID != c.UserID() {
						return nil, engine.Errorf("INVALID_ARGUMENTS", "hubd lists ORGANIZATION_MEMBER repositories only for the viewer.")
					}
					f.ViewerOrgMember = true
				}
			}
			if f.OwnedBy == 0 && f.CollaboratorOf == 0 && !f.ViewerOrgMember {
				f.None = true
			}
			switch args["privacy"] {
			case "PUBLIC":
				f.Visibility = "public"
			case "PRIVATE":
				f.Visibility = "private"
			}
			if fork, ok := args["isFork"].(bool); ok {
				f.Forks, f.Sources = fork, !fork
			}
			if ob, ok := args["orderBy"].(map[string]any); ok {
				switch ob["field"] {
				case "CREATED_AT":
					f.Sort = "created"
				case "UPDATED_AT":
					f.Sort = "updated"
				case "PUSHED_AT":
					f.Sort = "pushed"
				case "STARGAZERS":
					return nil, engine.Errorf("INVALID_ARGUMENTS", "hubd has no stars to order repositories by.")
				}
				f.Desc = ob["direction"] == "DESC"
			}
			q := a.d.Store.R()
			total := -1
			if w.needTotal {
				f.Limit, f.Offset = 1, 0
				if _, total, err = q.ListRepos(ctx, f); err != nil {
					return nil, err
				}
			}
			start, end := w.bounds(total)
			f.Limit, f.Offset = max(end-start, 1), start
			list, n, err := q.ListRepos(ctx, f)
			if err != nil {
				return nil, err
			}
			conn := &connection{offset: start, total: n}
			if end <= start {
				return conn, nil
			}
			for _, v := range list {
				conn.nodes = append(conn.nodes, &repoObj{v: v, perm: authz.RepoPermission(c, v.Repo, v.Facts)})
			}
			return conn, nil
		}))
	}
}

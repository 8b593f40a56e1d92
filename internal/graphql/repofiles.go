package graphql

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/community"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Repository fields gh repo view offers that come from the default
// branch's files (community files, FUNDING.yml, templates), the detected
// license and languages, the topics, and the viewer.

// repoFiles is what a repository's default branch holds, read once per
// repository object (resolvers of one request run one after another).
type repoFiles struct {
	g      *gitrepo.Repo // nil: no git storage or no default branch
	commit string
	tree   string
	files  community.Files
}

func (a *API) filesOf(ctx context.Context, o *repoObj) (*repoFiles, error) {
	if o.files != nil {
		return o.files, nil
	}
	f := &repoFiles{}
	if a.d.Git == nil {
		o.files = f
		return f, nil
	}
	g := a.d.Git.Open(o.v.Repo.ID)
	if g.Exists() {
		commit, err := a.d.ResolveCommit(ctx, g, o.v.Repo, "")
		switch {
		case errors.Is(err, deps.ErrEmptyRepo), errors.Is(err, model.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			_, data, err := g.Read(ctx, commit, 0)
			if err != nil {
				return nil, err
			}
			c, err := gitrepo.ParseCommit(commit, data)
			if err != nil {
				return nil, err
			}
			if f.files, err = community.Scan(ctx, g, c.Tree); err != nil {
				return nil, err
			}
			f.g, f.commit, f.tree = g, commit, c.Tree
		}
	}
	o.files = f
	return f, nil
}

// blobURL is the web URL of a file (or folder) of the default branch.
func (a *API) blobURL(o *repoObj, f *community.File) string {
	view := "/blob/"
	if f.Dir {
		view = "/tree/"
	}
	segs := strings.Split(f.Path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return a.repoURL(o) + view + url.PathEscape(o.v.Repo.DefaultBranch) + "/" + strings.Join(segs, "/")
}

// licenseObj is a license of the catalogue, or GitHub's "other".
type licenseObj struct{ l *licenses.License }

// codeOfConductObj is a repository's code of conduct file.
type codeOfConductObj struct {
	key, name, url, body string
}

type topicObj struct{ name string }

type repoTopicObj struct {
	repo  *repoObj
	topic *topicObj
}

type languageObj struct {
	name string
	size int64
}

type contactLinkObj = community.ContactLink
type fundingLinkObj = community.FundingLink
type issueTemplateObj = community.IssueTemplate

type prTemplateObj struct {
	t    community.PullRequestTemplate
	repo *repoObj
}

// nicknames are GitHub's customary short names of licenses.
var nicknames = map[string]string{
	"agpl-3.0": "GNU AGPLv3", "gpl-2.0": "GNU GPLv2", "gpl-3.0": "GNU GPLv3",
	"lgpl-2.1": "GNU LGPLv2.1", "lgpl-3.0": "GNU LGPLv3",
}

func (a *API) registerRepoFiles() {
	r := func(name string, f func(ctx context.Context, o *repoObj) (any, error)) {
		a.field("Repository", name, func(ctx context.Context, p any, _ map[string]any) (any, error) { return f(ctx, p.(*repoObj)) })
	}
	withFiles := func(name string, f func(ctx context.Context, o *repoObj, rf *repoFiles) (any, error)) {
		r(name, func(ctx context.Context, o *repoObj) (any, error) {
			rf, err := a.filesOf(ctx, o)
			if err != nil {
				return nil, err
			}
			return f(ctx, o, rf)
		})
	}

	// The license and primary language the facts detector stored for the
	// default branch's head, for the page's repositories in one query.
	facts := func(pick func(license, language string) any) func(context.Context, *engine.Batch) ([]any, error) {
		return func(ctx context.Context, b *engine.Batch) ([]any, error) {
			ids := make([]int64, len(b.Parents))
			for i, p := range b.Parents {
				ids[i] = p.(*repoObj).v.Repo.ID
			}
			got, err := a.d.Store.R().RepoFacts(ctx, ids)
			if err != nil {
				return nil, err
			}
			out := b.Values(len(ids))
			for i, id := range ids {
				out[i] = pick(got[id].License, got[id].Language)
			}
			return out, nil
		}
	}
	a.schema.Resolve("Repository", "licenseInfo", facts(func(key, _ string) any {
		if key == "" {
			return nil
		}
		if l, ok := licenses.Find(key); ok {
			return &licenseObj{l: l}
		}
		return &licenseObj{}
	}))
	a.schema.Resolve("Repository", "primaryLanguage", facts(func(_, lang string) any {
		if lang == "" {
			return nil
		}
		return &languageObj{name: lang}
	}))
	lic := func(name string, f func(l *licenses.License) any, other any) {
		a.field("License", name, func(_ context.Context, p any, _ map[string]any) (any, error) {
			if l := p.(*licenseObj).l; l != nil {
				return f(l), nil
			}
			return other, nil
		})
	}
	lic("id", func(l *licenses.License) any { return wire.LicenseNodeID(l.Key) }, wire.LicenseNodeID("0"))
	lic("key", func(l *licenses.License) any { return l.Key }, "other")
	lic("name", func(l *licenses.License) any { return l.Name }, "Other")
	lic("spdxId", func(l *licenses.License) any { return l.SPDX }, "NOASSERTION")
	lic("nickname", func(l *licenses.License) any { return strPtr(nicknames[l.Key]) }, nil)
	lic("url", func(l *licenses.License) any { return "http://choosealicense.com/licenses/" + l.Key + "/" }, nil)
	lic("pseudoLicense", func(*licenses.License) any { return false }, true)
	lic("description", func(l *licenses.License) any { return strPtr(l.Description) }, nil)
	lic("body", func(l *licenses.License) any { return l.Body }, "")
	lic("featured", func(l *licenses.License) any { return l.Featured }, false)

	a.field("Language", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return base64.StdEncoding.EncodeToString([]byte("08:Language" + p.(*languageObj).name)), nil
	})
	a.field("Language", "name", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*languageObj).name, nil })

	// languages: bytes per language of the default branch's tree (one
	// `git ls-tree -r -l`, as REST's /languages), largest first.
	a.connectionTypes("LanguageConnection", "LanguageEdge")
	a.field("LanguageEdge", "size", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*edge).node.(*languageObj).size, nil
	})
	a.field("LanguageConnection", "totalSize", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*connection).extra, nil
	})
	a.schema.Resolve("Repository", "languages", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		rf, err := a.filesOf(ctx, o)
		if err != nil {
			return nil, err
		}
		var list []*languageObj
		var total int64
		if rf.g != nil {
			sizes, err := rf.g.Languages(ctx, rf.commit)
			if err != nil {
				return nil, err
			}
			for name, n := range sizes {
				list = append(list, &languageObj{name: name, size: n})
				total += n
			}
		}
		asc := false
		if ob, ok := b.Args["orderBy"].(map[string]any); ok {
			asc = ob["direction"] == "ASC"
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].size != list[j].size {
				return (list[i].size < list[j].size) == asc
			}
			return list[i].name < list[j].name
		})
		c, err := slicePage(list, b, "languages")
		if err != nil {
			return nil, err
		}
		c.extra = total
		return c, nil
	}))

	// repositoryTopics: the topics of PUT /repos/{owner}/{repo}/topics.
	a.connectionTypes("RepositoryTopicConnection", "RepositoryTopicEdge")
	a.schema.Resolve("Repository", "repositoryTopics", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		list := make([]*repoTopicObj, len(o.v.Repo.Topics))
		for i, t := range o.v.Repo.Topics {
			list[i] = &repoTopicObj{repo: o, topic: &topicObj{name: t}}
		}
		return slicePage(list, b, "repositoryTopics")
	}))
	rt := func(name string, f func(t *repoTopicObj) any) {
		a.field("RepositoryTopic", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*repoTopicObj)), nil })
	}
	rt("id", func(t *repoTopicObj) any {
		return base64.StdEncoding.EncodeToString([]byte("015:RepositoryTopic" + strconv.FormatInt(t.repo.v.Repo.ID, 10) + ":" + t.topic.name))
	})
	rt("topic", func(t *repoTopicObj) any { return t.topic })
	rt("resourcePath", func(t *repoTopicObj) any { return "/topics/" + t.topic.name })
	rt("url", func(t *repoTopicObj) any { return a.d.URLs.Web + "/topics/" + t.topic.name })
	a.field("Topic", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return base64.StdEncoding.EncodeToString([]byte("05:Topic" + p.(*topicObj).name)), nil
	})
	a.field("Topic", "name", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*topicObj).name, nil })
	// hubd's starrables are repositories: nobody stars a topic.
	a.field("Topic", "stargazerCount", func(context.Context, any, map[string]any) (any, error) { return 0, nil })
	a.field("Topic", "viewerHasStarred", func(context.Context, any, map[string]any) (any, error) { return false, nil })

	withFiles("fundingLinks", func(ctx context.Context, _ *repoObj, rf *repoFiles) (any, error) {
		out := []any{}
		if rf.g == nil {
			return out, nil
		}
		links, err := community.Funding(ctx, rf.g, rf.tree, a.d.URLs.Web)
		for i := range links {
			out = append(out, &links[i])
		}
		return out, err
	})
	a.field("FundingLink", "platform", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*fundingLinkObj).Platform, nil
	})
	a.field("FundingLink", "url", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*fundingLinkObj).URL, nil })

	withFiles("codeOfConduct", func(ctx context.Context, o *repoObj, rf *repoFiles) (any, error) {
		f := rf.files.Conduct
		if f == nil || f.Dir {
			return nil, nil
		}
		key, name := community.ConductKind(ctx, rf.g, f.OID)
		_, body, err := rf.g.Read(ctx, f.OID, 256<<10)
		if err != nil && !errors.Is(err, gitrepo.ErrTooLarge) {
			return nil, err
		}
		return &codeOfConductObj{key: key, name: name, url: a.blobURL(o, f), body: string(body)}, nil
	})
	cc := func(name string, f func(c *codeOfConductObj) any) {
		a.field("CodeOfConduct", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*codeOfConductObj)), nil })
	}
	cc("id", func(c *codeOfConductObj) any {
		return base64.StdEncoding.EncodeToString([]byte("013:CodeOfConduct" + c.key))
	})
	cc("key", func(c *codeOfConductObj) any { return c.key })
	cc("name", func(c *codeOfConductObj) any { return c.name })
	cc("url", func(c *codeOfConductObj) any { return c.url })
	cc("resourcePath", func(c *codeOfConductObj) any { return strings.TrimPrefix(c.url, a.d.URLs.Web) })
	cc("body", func(c *codeOfConductObj) any { return c.body })

	issueConfig := func(ctx context.Context, rf *repoFiles) (community.IssueConfig, error) {
		if rf.g == nil {
			return community.IssueConfig{BlankIssuesEnabled: true}, nil
		}
		return community.ReadIssueConfig(ctx, rf.g, rf.tree, rf.files)
	}
	withFiles("contactLinks", func(ctx context.Context, _ *repoObj, rf *repoFiles) (any, error) {
		cfg, err := issueConfig(ctx, rf)
		out := []any{}
		for i := range cfg.ContactLinks {
			out = append(out, &cfg.ContactLinks[i])
		}
		return out, err
	})
	withFiles("isBlankIssuesEnabled", func(ctx context.Context, _ *repoObj, rf *repoFiles) (any, error) {
		cfg, err := issueConfig(ctx, rf)
		return cfg.BlankIssuesEnabled, err
	})
	for _, f := range []string{"name", "url", "about"} {
		a.field("RepositoryContactLink", f, func(_ context.Context, p any, _ map[string]any) (any, error) {
			l := p.(*contactLinkObj)
			return map[string]string{"name": l.Name, "url": l.URL, "about": l.About}[f], nil
		})
	}

	withFiles("issueTemplates", func(ctx context.Context, _ *repoObj, rf *repoFiles) (any, error) {
		out := []any{}
		if rf.g == nil {
			return out, nil
		}
		list, err := community.IssueTemplates(ctx, rf.g, rf.tree, rf.files)
		for i := range list {
			out = append(out, &list[i])
		}
		return out, err
	})
	it := func(name string, f func(t *issueTemplateObj) any) {
		a.field("IssueTemplate", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*issueTemplateObj)), nil })
	}
	it("name", func(t *issueTemplateObj) any { return t.Name })
	it("filename", func(t *issueTemplateObj) any { return t.Filename })
	it("about", func(t *issueTemplateObj) any { return strPtr(t.About) })
	it("title", func(t *issueTemplateObj) any { return strPtr(t.Title) })
	it("body", func(t *issueTemplateObj) any { return strPtr(t.Body) })

	withFiles("pullRequestTemplates", func(ctx context.Context, o *repoObj, rf *repoFiles) (any, error) {
		out := []any{}
		if rf.g == nil {
			return out, nil
		}
		list, err := community.PullRequestTemplates(ctx, rf.g, rf.tree, rf.files)
		for _, t := range list {
			out = append(out, &prTemplateObj{t: t, repo: o})
		}
		return out, err
	})
	a.field("PullRequestTemplate", "body", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*prTemplateObj).t.Body, nil })
	a.field("PullRequestTemplate", "filename", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*prTemplateObj).t.Filename, nil
	})
	a.field("PullRequestTemplate", "repository", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*prTemplateObj).repo, nil })

	withFiles("securityPolicyUrl", func(_ context.Context, o *repoObj, rf *repoFiles) (any, error) {
		if f := rf.files.Security; f != nil {
			return a.blobURL(o, f), nil
		}
		return nil, nil
	})
	withFiles("isSecurityPolicyEnabled", func(_ context.Context, _ *repoObj, rf *repoFiles) (any, error) {
		return rf.files.Security != nil, nil
	})

	// hubd mirrors no repository from elsewhere.
	r("mirrorUrl", func(context.Context, *repoObj) (any, error) { return nil, nil })
	r("isMirror", func(context.Context, *repoObj) (any, error) { return false, nil })
	// hubd renders no social preview cards and takes no uploaded image: the
	// preview is the owner's avatar.
	r("openGraphImageUrl", func(_ context.Context, o *repoObj) (any, error) { return a.d.URLs.AvatarURL(o.v.Repo.Owner), nil })
	r("usesCustomOpenGraphImage", func(context.Context, *repoObj) (any, error) { return false, nil })
	r("diskUsage", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.Size, nil })
	r("isInOrganization", func(_ context.Context, o *repoObj) (any, error) { return o.v.Repo.Owner.IsOrg(), nil })
	r("isUserConfigurationRepository", func(_ context.Context, o *repoObj) (any, error) {
		return !o.v.Repo.Owner.IsOrg() && strings.EqualFold(o.v.Repo.Name, o.v.Repo.Owner.Login), nil
	})
	r("viewerDefaultMergeMethod", func(_ context.Context, o *repoObj) (any, error) {
		switch rp := o.v.Repo; {
		case !rp.AllowMergeCommit && rp.AllowSquashMerge:
			return "SQUASH", nil
		case !rp.AllowMergeCommit && !rp.AllowSquashMerge && rp.AllowRebaseMerge:
			return "REBASE", nil
		}
		return "MERGE", nil
	})
	// The viewer's commit addresses: their email, then their private
	// noreply address (GitHub's web editor offers the same).
	emails := func(ctx context.Context) []string {
		u := from(ctx).caller.User
		if u == nil {
			return nil
		}
		var out []string
		if u.Email != "" {
			out = append(out, u.Email)
		}
		return append(out, strconv.FormatInt(u.ID, 10)+"+"+u.Login+"@"+a.d.URLs.NoreplyDomain())
	}
	r("viewerPossibleCommitEmails", func(ctx context.Context, _ *repoObj) (any, error) {
		if e := emails(ctx); e != nil {
			return e, nil
		}
		return nil, nil
	})
	r("viewerDefaultCommitEmail", func(ctx context.Context, _ *repoObj) (any, error) {
		if e := emails(ctx); len(e) > 0 {
			return e[0], nil
		}
		return nil, nil
	})
	// The viewer's watching of the repository (PUT .../subscription).
	r("viewerSubscription", func(ctx context.Context, o *repoObj) (any, error) {
		uid := from(ctx).caller.UserID()
		if uid == 0 {
			return nil, nil
		}
		s, err := a.d.Store.R().SubscriptionOf(ctx, uid, o.v.Repo.ID)
		switch {
		case errors.Is(err, model.ErrNotFound) || err == nil && s == nil:
			return "UNSUBSCRIBED", nil
		case err != nil:
			return nil, err
		case s.Ignored:
			return "IGNORED", nil
		case s.Subscribed:
			return "SUBSCRIBED", nil
		}
		return "UNSUBSCRIBED", nil
	})
}

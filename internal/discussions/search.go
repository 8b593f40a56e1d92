package discussions

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Results is a page of a discussion search with the repositories its
// discussions belong to.
type Results struct {
	Discussions []*model.Discussion
	Repos       map[int64]*Access
	Views       map[int64]*store.RepoView
	Total       int
}

// Search runs a discussion search (GraphQL's search type DISCUSSION): the
// repo: qualifier names the repository; without it every repository the
// caller may read (user: or org: narrow to an account's), with is:open, is:closed, is:answered, is:unanswered, author:, label:,
// category: (name or slug), sort:created-asc|desc and sort:updated-…, and
// words matched in titles and bodies.
func (s *Service) Search(ctx context.Context, c *authz.Caller, query string, limit, offset int) (*Results, error) {
	out := &Results{Repos: map[int64]*Access{}, Views: map[int64]*store.RepoView{}}
	f := store.DiscussionQuery{}
	var repo, author, category, owner string
	var labels []string
	for _, tok := range tokens(query) {
		key, val, ok := strings.Cut(tok, ":")
		if !ok || val == "" {
			f.Words = append(f.Words, tok)
			continue
		}
		val = strings.Trim(val, `"`)
		switch strings.ToLower(key) {
		case "repo":
			repo = val
		case "is":
			t, fl := true, false
			switch strings.ToLower(val) {
			case "open":
				f.Closed = &fl
			case "closed":
				f.Closed = &t
			case "answered":
				f.Answered = &t
			case "unanswered":
				f.Answered = &fl
			}
		case "author":
			author = val
		case "user", "org":
			owner = val
		case "label":
			labels = append(labels, val)
		case "category":
			category = val
		case "sort":
			field, dir, _ := strings.Cut(val, "-")
			if field == "created" {
				f.OrderBy = "created_at"
			}
			f.Asc = dir == "asc"
		case "type", "in":
		default:
			f.Words = append(f.Words, tok)
		}
	}
	q := s.Store.R()
	if author != "" {
		acc, err := q.AccountByLogin(ctx, author)
		if err != nil {
			return out, nil
		}
		f.AuthorID = acc.ID
	}
	if repo == "" {
		if len(labels) > 0 || category != "" {
			// Labels and categories belong to a repository: without repo:
			// they match nothing here.
			return out, nil
		}
		return s.searchAll(ctx, c, f, owner, limit, offset)
	}
	repoOwner, name, ok := strings.Cut(repo, "/")
	if !ok {
		return out, nil
	}
	v, err := q.RepoByName(ctx, repoOwner, name, c.UserID())
	if errors.Is(err, model.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	x := &Access{Caller: c, Repo: v.Repo, Perm: authz.RepoPermission(c, v.Repo, v.Facts)}
	if x.Readable() != nil {
		return out, nil
	}
	f.RepoID = v.Repo.ID
	if len(labels) > 0 {
		m, err := q.LabelsByName(ctx, v.Repo.ID, labels)
		if err != nil {
			return nil, err
		}
		for _, l := range labels {
			lab := m[strings.ToLower(l)]
			if lab == nil {
				lab = m[l]
			}
			if lab == nil {
				return out, nil
			}
			f.LabelIDs = append(f.LabelIDs, lab.ID)
		}
	}
	if category != "" {
		cats, err := s.Categories(ctx, []*model.Repo{v.Repo})
		if err != nil {
			return nil, err
		}
		for _, cat := range cats[v.Repo.ID] {
			if strings.EqualFold(cat.Name, category) || cat.Slug == strings.ToLower(category) {
				f.CategoryID = cat.ID
			}
		}
		if f.CategoryID == 0 {
			return out, nil
		}
	}
	if out.Total, err = q.CountDiscussions(ctx, f); err != nil {
		return nil, err
	}
	if limit > 0 {
		if out.Discussions, err = q.DiscussionsPage(ctx, f, limit, offset); err != nil {
			return nil, err
		}
	}
	out.Repos[v.Repo.ID], out.Views[v.Repo.ID] = x, v
	return out, nil
}

// searchAll searches the discussions of every repository the caller may
// read with discussions on (of owner's, when named), in SQL, a page at a
// time; the page's repositories are loaded in one query.
func (s *Service) searchAll(ctx context.Context, c *authz.Caller, f store.DiscussionQuery, owner string, limit, offset int) (*Results, error) {
	out := &Results{Repos: map[int64]*Access{}, Views: map[int64]*store.RepoView{}}
	q := s.Store.R()
	if owner != "" {
		acc, err := q.AccountByLogin(ctx, owner)
		if errors.Is(err, model.ErrNotFound) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		f.OwnerID = acc.ID
	}
	list, total, err := q.SearchDiscussions(ctx, deps.ViewerOf(c), f, max(limit, 1), offset)
	if err != nil {
		return nil, err
	}
	out.Total = total
	if limit <= 0 {
		return out, nil
	}
	ids := make([]int64, 0, len(list))
	for _, d := range list {
		ids = append(ids, d.RepoID)
	}
	views, err := q.ReposByID(ctx, ids, c.UserID())
	if err != nil {
		return nil, err
	}
	for _, d := range list {
		v := views[d.RepoID]
		if v == nil {
			continue
		}
		x := &Access{Caller: c, Repo: v.Repo, Perm: authz.RepoPermission(c, v.Repo, v.Facts)}
		if x.Readable() != nil {
			continue // the SQL rule and authz agree; this keeps them honest
		}
		out.Repos[v.Repo.ID], out.Views[v.Repo.ID] = x, v
		out.Discussions = append(out.Discussions, d)
	}
	return out, nil
}

// tokens splits a query on spaces, keeping quoted parts together.
func tokens(s string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			b.WriteRune(r)
		case r == ' ' && !quoted:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

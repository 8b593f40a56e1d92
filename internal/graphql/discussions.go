package graphql

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"html"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/discussions"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/markdown/linked"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Discussions: Repository.discussionCategories, discussions and
// discussion(number:), the Discussion, DiscussionComment and
// DiscussionCategory types, and the discussion mutations
// (discussions_mutations.go), over internal/discussions.

// discObj is a discussion with its repository; details are what lists
// load for a whole batch at once (discDetails).
type discObj struct {
	d    *model.Discussion
	repo *repoObj
	det  *discDetails
}

type discDetails struct {
	category *model.DiscussionCategory
	labels   []*model.Label
	rollup   model.ReactionRollup
	upvoted  bool
	assoc    string
}

// dcommentObj is a discussion comment (or reply) with its discussion.
type dcommentObj struct {
	c    *model.DiscussionComment
	disc *discObj
	det  *dcommentDetails
}

type dcommentDetails struct {
	rollup  model.ReactionRollup
	upvoted bool
	assoc   string
}

// dcatObj is a discussion category with its repository.
type dcatObj struct {
	c    *model.DiscussionCategory
	repo *repoObj
}

// discussionTypeOf names the discussion objects' GraphQL types.
func discussionTypeOf(v any) string {
	switch v.(type) {
	case *discObj:
		return "Discussion"
	case *dcommentObj:
		return "DiscussionComment"
	case *dcatObj:
		return "DiscussionCategory"
	}
	return ""
}

// Node ids of discussions, their comments and categories are GitHub's:
// the MessagePack array [0, repository id, id] (gh builds a comment's id
// from a URL's #discussioncomment-N this way).
func nodeID3(prefix string, repoID, id int64) string { return wire.NodeID3(prefix, repoID, id) }

// decodeNodeID3 reads an id nodeID3 made.
func decodeNodeID3(s string) (prefix string, repoID, id int64, ok bool) {
	prefix, enc, found := strings.Cut(s, "_")
	if !found {
		return "", 0, 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || len(b) < 4 || b[0] != 0x93 || b[1] != 0x00 {
		return "", 0, 0, false
	}
	b = b[2:]
	var nums [2]int64
	for i := range nums {
		if len(b) == 0 {
			return "", 0, 0, false
		}
		var u uint64
		switch {
		case b[0] < 0x80:
			u, b = uint64(b[0]), b[1:]
		case b[0] == 0xcc && len(b) >= 2:
			u, b = uint64(b[1]), b[2:]
		case b[0] == 0xcd && len(b) >= 3:
			u, b = uint64(binary.BigEndian.Uint16(b[1:])), b[3:]
		case b[0] == 0xce && len(b) >= 5:
			u, b = uint64(binary.BigEndian.Uint32(b[1:])), b[5:]
		case b[0] == 0xcf && len(b) >= 9:
			u, b = binary.BigEndian.Uint64(b[1:]), b[9:]
		default:
			return "", 0, 0, false
		}
		if u > 1<<62 {
			return "", 0, 0, false
		}
		nums[i] = int64(u)
	}
	if len(b) != 0 || nums[1] == 0 {
		return "", 0, 0, false
	}
	return prefix, nums[0], nums[1], true
}

func (a *API) discussionsSvc() *discussions.Service { return discussions.New(a.d.Store) }

func discAccess(ctx context.Context, o *repoObj) *discussions.Access {
	return &discussions.Access{Caller: from(ctx).caller, Repo: o.v.Repo, Perm: o.perm}
}

// discussionNodes fills the discussion, comment and category ids among
// ids (the node and nodes queries).
func (a *API) discussionNodes(ctx context.Context, ids []string, out []any) error {
	var dIDs, cIDs []int64
	var repoIDs []int64
	for _, s := range ids {
		prefix, repoID, id, ok := decodeNodeID3(s)
		if !ok {
			continue
		}
		switch prefix {
		case "D":
			dIDs = append(dIDs, id)
		case "DC":
			cIDs = append(cIDs, id)
		case "DIC":
			repoIDs = append(repoIDs, repoID)
		}
	}
	if len(dIDs)+len(cIDs)+len(repoIDs) == 0 {
		return nil
	}
	q := a.d.Store.R()
	comments, err := q.DiscussionCommentsByID(ctx, cIDs)
	if err != nil {
		return err
	}
	for _, c := range comments {
		dIDs = append(dIDs, c.DiscussionID)
	}
	discs, err := q.DiscussionsByID(ctx, dIDs)
	if err != nil {
		return err
	}
	for _, d := range discs {
		repoIDs = append(repoIDs, d.RepoID)
	}
	repos, err := a.reposByID(ctx, repoIDs)
	if err != nil {
		return err
	}
	visible := func(repoID int64) *repoObj {
		if r := repos[repoID]; r != nil && r.v.Repo.HasDiscussions {
			return r
		}
		return nil
	}
	var catRepos []*model.Repo
	for _, s := range ids {
		if prefix, repoID, _, ok := decodeNodeID3(s); ok && prefix == "DIC" && visible(repoID) != nil {
			catRepos = append(catRepos, visible(repoID).v.Repo)
		}
	}
	cats, err := a.discussionsSvc().Categories(ctx, catRepos)
	if err != nil {
		return err
	}
	for i, s := range ids {
		prefix, repoID, id, ok := decodeNodeID3(s)
		if !ok {
			continue
		}
		switch prefix {
		case "D":
			if d := discs[id]; d != nil && visible(d.RepoID) != nil {
				out[i] = &discObj{d: d, repo: visible(d.RepoID)}
			}
		case "DC":
			if c := comments[id]; c != nil && discs[c.DiscussionID] != nil && visible(c.RepoID) != nil {
				d := discs[c.DiscussionID]
				out[i] = &dcommentObj{c: c, disc: &discObj{d: d, repo: visible(d.RepoID)}}
			}
		case "DIC":
			for _, c := range cats[repoID] {
				if c.ID == id {
					out[i] = &dcatObj{c: c, repo: visible(repoID)}
				}
			}
		}
	}
	return nil
}

// loadDiscDetails loads what the discussions of a batch show beyond their
// row: categories, labels, reaction counts, the viewer's upvotes and
// authors' associations, a query each for the whole batch.
func (a *API) loadDiscDetails(ctx context.Context, parents []any) error {
	var list []*discObj
	for _, p := range parents {
		if o := p.(*discObj); o.det == nil {
			list = append(list, o)
		}
	}
	if len(list) == 0 {
		return nil
	}
	q := a.d.Store.R()
	var ids, reacted []int64
	var pairs [][2]int64
	repoSeen := map[int64]bool{}
	var repos []*model.Repo
	for _, o := range list {
		ids = append(ids, o.d.ID)
		if o.d.Reactions > 0 {
			reacted = append(reacted, o.d.ID)
		}
		if o.d.User != nil {
			pairs = append(pairs, [2]int64{o.d.RepoID, o.d.User.ID})
		}
		if !repoSeen[o.d.RepoID] {
			repoSeen[o.d.RepoID] = true
			repos = append(repos, o.repo.v.Repo)
		}
	}
	cats, err := a.discussionsSvc().Categories(ctx, repos)
	if err != nil {
		return err
	}
	labels, err := q.DiscussionLabelsOf(ctx, ids)
	if err != nil {
		return err
	}
	rollups, err := q.ReactionRollups(ctx, store.ReactDiscussion, reacted)
	if err != nil {
		return err
	}
	upvoted, err := q.UpvotedBy(ctx, store.UpvoteDiscussion, ids, from(ctx).caller.UserID())
	if err != nil {
		return err
	}
	assoc, err := q.Associations(ctx, pairs)
	if err != nil {
		return err
	}
	for _, o := range list {
		det := &discDetails{labels: labels[o.d.ID], rollup: rollups[o.d.ID], upvoted: upvoted[o.d.ID], assoc: "NONE"}
		for _, c := range cats[o.d.RepoID] {
			if c.ID == o.d.CategoryID {
				det.category = c
			}
		}
		if o.d.User != nil && assoc[[2]int64{o.d.RepoID, o.d.User.ID}] != "" {
			det.assoc = assoc[[2]int64{o.d.RepoID, o.d.User.ID}]
		}
		o.det = det
	}
	return nil
}

// loadCommentDetails is loadDiscDetails for comments.
func (a *API) loadCommentDetails(ctx context.Context, parents []any) error {
	var list []*dcommentObj
	for _, p := range parents {
		if o := p.(*dcommentObj); o.det == nil {
			list = append(list, o)
		}
	}
	if len(list) == 0 {
		return nil
	}
	q := a.d.Store.R()
	var ids, reacted []int64
	var pairs [][2]int64
	for _, o := range list {
		ids = append(ids, o.c.ID)
		if o.c.Reactions > 0 {
			reacted = append(reacted, o.c.ID)
		}
		if o.c.User != nil {
			pairs = append(pairs, [2]int64{o.c.RepoID, o.c.User.ID})
		}
	}
	rollups, err := q.ReactionRollups(ctx, store.ReactDiscussionComment, reacted)
	if err != nil {
		return err
	}
	upvoted, err := q.UpvotedBy(ctx, store.UpvoteComment, ids, from(ctx).caller.UserID())
	if err != nil {
		return err
	}
	assoc, err := q.Associations(ctx, pairs)
	if err != nil {
		return err
	}
	for _, o := range list {
		det := &dcommentDetails{rollup: rollups[o.c.ID], upvoted: upvoted[o.c.ID], assoc: "NONE"}
		if o.c.User != nil && assoc[[2]int64{o.c.RepoID, o.c.User.ID}] != "" {
			det.assoc = assoc[[2]int64{o.c.RepoID, o.c.User.ID}]
		}
		o.det = det
	}
	return nil
}

func (a *API) discURL(o *discObj) string {
	return a.repoURL(o.repo) + "/discussions/" + strconv.FormatInt(o.d.Number, 10)
}

func discPath(o *discObj) string {
	return "/" + o.repo.v.Repo.FullName() + "/discussions/" + strconv.FormatInt(o.d.Number, 10)
}

func (a *API) registerDiscussions() {
	a.connectionTypes("DiscussionCategoryConnection", "DiscussionCategoryEdge")
	a.connectionTypes("DiscussionConnection", "DiscussionEdge")
	a.connectionTypes("DiscussionCommentConnection", "DiscussionCommentEdge")
	svc := a.discussionsSvc()

	// Repository fields.
	a.schema.Resolve("Repository", "discussionCategories", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var repos []*model.Repo
		for _, p := range b.Parents {
			repos = append(repos, p.(*repoObj).v.Repo)
		}
		cats, err := svc.Categories(ctx, repos)
		if err != nil {
			return nil, err
		}
		filter, _ := b.Args["filterByAssignable"].(bool)
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*repoObj)
			var list []*dcatObj
			if o.v.Repo.HasDiscussions {
				for _, c := range cats[o.v.Repo.ID] {
					if filter && c.Format == discussions.FormatAnnouncement && o.perm < authz.Maintain {
						continue
					}
					list = append(list, &dcatObj{c: c, repo: o})
				}
			}
			conn, err := slicePage(list, b, "discussionCategories")
			if err != nil {
				return nil, err
			}
			out[i] = conn
		}
		return out, nil
	})
	a.field("Repository", "discussionCategory", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		slug, _ := args["slug"].(string)
		if !o.v.Repo.HasDiscussions {
			return nil, nil
		}
		cats, err := svc.Categories(ctx, []*model.Repo{o.v.Repo})
		if err != nil {
			return nil, err
		}
		for _, c := range cats[o.v.Repo.ID] {
			if c.Slug == slug {
				return &dcatObj{c: c, repo: o}, nil
			}
		}
		return nil, nil
	})
	a.schema.Resolve("Repository", "discussions", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		page, err := sqlPage(b, "discussions")
		if err != nil {
			return nil, err
		}
		f := store.DiscussionQuery{}
		if s, _ := b.Args["categoryId"].(string); s != "" {
			prefix, _, id, ok := decodeNodeID3(s)
			if !ok || prefix != "DIC" {
				return nil, notFound("Could not resolve to a node with the global id of '%s'", s)
			}
			f.CategoryID = id
		}
		states := stringList(b.Args["states"])
		if len(states) == 1 {
			closed := states[0] == "CLOSED"
			f.Closed = &closed
		}
		if ans, ok := b.Args["answered"].(bool); ok {
			f.Answered = &ans
		}
		if ob, ok := b.Args["orderBy"].(map[string]any); ok {
			if ob["field"] == "CREATED_AT" {
				f.OrderBy = "created_at"
			}
			f.Asc = ob["direction"] == "ASC"
		}
		list, total, err := svc.List(ctx, discAccess(ctx, o), f, page)
		if err != nil {
			return nil, gqlError(err)
		}
		start, _ := page(total)
		conn := &connection{offset: start, total: total}
		for _, d := range list {
			conn.nodes = append(conn.nodes, &discObj{d: d, repo: o})
		}
		return conn, nil
	}))
	a.field("Repository", "discussion", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		n, _ := intArg(args, "number")
		d, err := svc.Get(ctx, discAccess(ctx, o), int64(n))
		if errors.Is(err, model.ErrNotFound) {
			return nil, notFound("Could not resolve to a Discussion with the number of %d.", n)
		}
		if err != nil {
			return nil, err
		}
		return &discObj{d: d, repo: o}, nil
	})

	// DiscussionCategory.
	cat := func(name string, f func(o *dcatObj) any) {
		a.field("DiscussionCategory", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*dcatObj)), nil })
	}
	cat("id", func(o *dcatObj) any { return nodeID3("DIC", o.c.RepoID, o.c.ID) })
	cat("name", func(o *dcatObj) any { return o.c.Name })
	cat("slug", func(o *dcatObj) any { return o.c.Slug })
	cat("emoji", func(o *dcatObj) any { return o.c.Emoji })
	cat("emojiHTML", func(o *dcatObj) any {
		return `<div><g-emoji class="g-emoji" alias="` + html.EscapeString(strings.Trim(o.c.Emoji, ":")) + `">` + emojiChar(o.c.Emoji) + `</g-emoji></div>`
	})
	cat("description", func(o *dcatObj) any { return strPtr(o.c.Description) })
	cat("isAnswerable", func(o *dcatObj) any { return o.c.Answerable() })
	cat("createdAt", func(o *dcatObj) any { return o.c.CreatedAt })
	cat("updatedAt", func(o *dcatObj) any { return o.c.UpdatedAt })
	cat("repository", func(o *dcatObj) any { return o.repo })

	// Discussion.
	di := func(name string, f func(ctx context.Context, o *discObj) any) {
		a.field("Discussion", name, func(ctx context.Context, p any, _ map[string]any) (any, error) { return f(ctx, p.(*discObj)), nil })
	}
	detail := func(name string, f func(ctx context.Context, o *discObj) any) {
		a.schema.Resolve("Discussion", name, func(ctx context.Context, b *engine.Batch) ([]any, error) {
			if err := a.loadDiscDetails(ctx, b.Parents); err != nil {
				return nil, err
			}
			out := make([]any, len(b.Parents))
			for i, p := range b.Parents {
				out[i] = f(ctx, p.(*discObj))
			}
			return out, nil
		})
	}
	author := func(ctx context.Context, o *discObj) bool {
		u := from(ctx).caller.UserID()
		return u != 0 && o.d.User != nil && o.d.User.ID == u
	}
	signedIn := func(ctx context.Context) bool { return from(ctx).caller.User != nil }
	di("id", func(_ context.Context, o *discObj) any { return nodeID3("D", o.d.RepoID, o.d.ID) })
	di("databaseId", func(_ context.Context, o *discObj) any { return o.d.ID })
	di("number", func(_ context.Context, o *discObj) any { return o.d.Number })
	di("title", func(_ context.Context, o *discObj) any { return o.d.Title })
	di("body", func(_ context.Context, o *discObj) any { return o.d.Body })
	// bodyHTML links references the reader may see, as issues' body_html.
	a.field("Discussion", "bodyHTML", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*discObj)
		return linked.Render(ctx, a.d, from(ctx).caller, o.repo.v.Repo, o.d.Body, true)
	})
	di("bodyText", func(_ context.Context, o *discObj) any { return markdown.Text(o.d.Body) })
	di("url", func(_ context.Context, o *discObj) any { return a.discURL(o) })
	di("resourcePath", func(_ context.Context, o *discObj) any { return discPath(o) })
	di("author", func(_ context.Context, o *discObj) any { return accountOrNil(o.d.User) })
	detail("authorAssociation", func(_ context.Context, o *discObj) any { return o.det.assoc })
	detail("category", func(_ context.Context, o *discObj) any {
		if o.det.category == nil {
			return nil
		}
		return &dcatObj{c: o.det.category, repo: o.repo}
	})
	di("closed", func(_ context.Context, o *discObj) any { return o.d.Closed })
	di("closedAt", func(_ context.Context, o *discObj) any { return o.d.ClosedAt })
	di("stateReason", func(_ context.Context, o *discObj) any { return strPtr(o.d.StateReason) })
	di("createdAt", func(_ context.Context, o *discObj) any { return o.d.CreatedAt })
	di("publishedAt", func(_ context.Context, o *discObj) any { return o.d.CreatedAt })
	di("updatedAt", func(_ context.Context, o *discObj) any { return o.d.UpdatedAt })
	di("lastEditedAt", func(_ context.Context, o *discObj) any { return o.d.LastEditedAt })
	di("includesCreatedEdit", func(_ context.Context, o *discObj) any { return o.d.LastEditedAt != nil })
	di("createdViaEmail", func(_ context.Context, o *discObj) any { return false })
	di("locked", func(_ context.Context, o *discObj) any { return o.d.Locked })
	di("activeLockReason", func(_ context.Context, o *discObj) any {
		if !o.d.Locked {
			return nil
		}
		return strPtr(o.d.LockReason)
	})
	di("isAnswered", func(_ context.Context, o *discObj) any { return o.d.AnswerID != 0 })
	di("answerChosenAt", func(_ context.Context, o *discObj) any { return o.d.AnswerChosenAt })
	di("upvoteCount", func(_ context.Context, o *discObj) any { return o.d.Upvotes })
	di("repository", func(_ context.Context, o *discObj) any { return o.repo })
	detail("viewerHasUpvoted", func(_ context.Context, o *discObj) any { return o.det.upvoted })
	di("viewerCanUpvote", func(ctx context.Context, o *discObj) any {
		return signedIn(ctx) && (!o.d.Locked || o.repo.perm >= authz.Write)
	})
	di("viewerCanReact", func(ctx context.Context, o *discObj) any {
		return signedIn(ctx) && (!o.d.Locked || o.repo.perm >= authz.Write)
	})
	di("viewerDidAuthor", func(ctx context.Context, o *discObj) any { return author(ctx, o) })
	di("viewerCanUpdate", func(ctx context.Context, o *discObj) any { return author(ctx, o) || o.repo.perm >= authz.Triage })
	di("viewerCanDelete", func(_ context.Context, o *discObj) any { return o.repo.perm >= authz.Triage })
	di("viewerCanClose", func(ctx context.Context, o *discObj) any {
		return !o.d.Closed && (author(ctx, o) || o.repo.perm >= authz.Triage)
	})
	di("viewerCanReopen", func(ctx context.Context, o *discObj) any {
		return o.d.Closed && (author(ctx, o) || o.repo.perm >= authz.Triage)
	})
	di("viewerCanLabel", func(_ context.Context, o *discObj) any { return o.repo.perm >= authz.Triage })
	a.schema.Resolve("Discussion", "labels", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.loadDiscDetails(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*discObj)
			list := make([]*labelObj, len(o.det.labels))
			for j, l := range o.det.labels {
				list[j] = &labelObj{l: l, repo: o.repo}
			}
			c, err := slicePage(list, b, "labels")
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	})
	detail("reactionGroups", func(_ context.Context, o *discObj) any {
		return groups(store.ReactDiscussion, o.d.ID, o.det.rollup)
	})
	// People: editor and whoever chose the answer, one query per batch.
	people := func(typ, name string, id func(p any) int64) {
		a.schema.Resolve(typ, name, func(ctx context.Context, b *engine.Batch) ([]any, error) {
			var ids []int64
			for _, p := range b.Parents {
				if n := id(p); n != 0 {
					ids = append(ids, n)
				}
			}
			accs, err := a.d.Store.R().AccountsByID(ctx, ids)
			if err != nil {
				return nil, err
			}
			out := make([]any, len(b.Parents))
			for i, p := range b.Parents {
				if acc := accs[id(p)]; acc != nil {
					out[i] = acc
				}
			}
			return out, nil
		})
	}
	people("Discussion", "editor", func(p any) int64 { return p.(*discObj).d.EditorID })
	people("Discussion", "answerChosenBy", func(p any) int64 { return p.(*discObj).d.AnswerChosenBy })
	people("DiscussionComment", "editor", func(p any) int64 { return p.(*dcommentObj).c.EditorID })
	a.schema.Resolve("Discussion", "answer", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var ids []int64
		for _, p := range b.Parents {
			if n := p.(*discObj).d.AnswerID; n != 0 {
				ids = append(ids, n)
			}
		}
		m, err := a.d.Store.R().DiscussionCommentsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*discObj)
			if c := m[o.d.AnswerID]; c != nil {
				out[i] = &dcommentObj{c: c, disc: o}
			}
		}
		return out, nil
	})
	// Comments: the pages of a batch's discussions in one query.
	a.schema.Resolve("Discussion", "comments", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		page, err := sqlPage(b, "comments")
		if err != nil {
			return nil, err
		}
		conns := make([]*connection, len(b.Parents))
		wins := make([]store.DiscussionCommentWindow, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*discObj)
			start, end := page(o.d.Comments)
			conns[i] = &connection{offset: start, total: o.d.Comments}
			wins[i] = store.DiscussionCommentWindow{DiscussionID: o.d.ID, Start: start, End: end}
		}
		m, err := a.d.Store.R().DiscussionCommentsPages(ctx, wins)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*discObj)
			for _, c := range m[o.d.ID] {
				conns[i].nodes = append(conns[i].nodes, &dcommentObj{c: c, disc: o})
			}
			out[i] = conns[i]
		}
		return out, nil
	})

	// DiscussionComment.
	dc := func(name string, f func(ctx context.Context, o *dcommentObj) any) {
		a.field("DiscussionComment", name, func(ctx context.Context, p any, _ map[string]any) (any, error) { return f(ctx, p.(*dcommentObj)), nil })
	}
	cdetail := func(name string, f func(o *dcommentObj) any) {
		a.schema.Resolve("DiscussionComment", name, func(ctx context.Context, b *engine.Batch) ([]any, error) {
			if err := a.loadCommentDetails(ctx, b.Parents); err != nil {
				return nil, err
			}
			out := make([]any, len(b.Parents))
			for i, p := range b.Parents {
				out[i] = f(p.(*dcommentObj))
			}
			return out, nil
		})
	}
	cauthor := func(ctx context.Context, o *dcommentObj) bool {
		u := from(ctx).caller.UserID()
		return u != 0 && o.c.User != nil && o.c.User.ID == u
	}
	dc("id", func(_ context.Context, o *dcommentObj) any { return nodeID3("DC", o.c.RepoID, o.c.ID) })
	dc("databaseId", func(_ context.Context, o *dcommentObj) any { return o.c.ID })
	dc("body", func(_ context.Context, o *dcommentObj) any { return o.c.Body })
	a.field("DiscussionComment", "bodyHTML", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*dcommentObj)
		return linked.Render(ctx, a.d, from(ctx).caller, o.disc.repo.v.Repo, o.c.Body, true)
	})
	dc("bodyText", func(_ context.Context, o *dcommentObj) any { return markdown.Text(o.c.Body) })
	dc("url", func(_ context.Context, o *dcommentObj) any {
		return a.discURL(o.disc) + "#discussioncomment-" + strconv.FormatInt(o.c.ID, 10)
	})
	dc("resourcePath", func(_ context.Context, o *dcommentObj) any {
		return discPath(o.disc) + "#discussioncomment-" + strconv.FormatInt(o.c.ID, 10)
	})
	dc("author", func(_ context.Context, o *dcommentObj) any { return accountOrNil(o.c.User) })
	cdetail("authorAssociation", func(o *dcommentObj) any { return o.det.assoc })
	dc("createdAt", func(_ context.Context, o *dcommentObj) any { return o.c.CreatedAt })
	dc("publishedAt", func(_ context.Context, o *dcommentObj) any { return o.c.CreatedAt })
	dc("updatedAt", func(_ context.Context, o *dcommentObj) any { return o.c.UpdatedAt })
	dc("lastEditedAt", func(_ context.Context, o *dcommentObj) any { return o.c.LastEditedAt })
	dc("includesCreatedEdit", func(_ context.Context, o *dcommentObj) any { return o.c.LastEditedAt != nil })
	dc("createdViaEmail", func(_ context.Context, o *dcommentObj) any { return false })
	dc("deletedAt", func(_ context.Context, o *dcommentObj) any { return nil })
	dc("discussion", func(_ context.Context, o *dcommentObj) any { return o.disc })
	dc("isAnswer", func(_ context.Context, o *dcommentObj) any { return o.disc.d.AnswerID == o.c.ID })
	dc("isMinimized", func(_ context.Context, o *dcommentObj) any { return false })
	dc("minimizedReason", func(_ context.Context, o *dcommentObj) any { return nil })
	dc("upvoteCount", func(_ context.Context, o *dcommentObj) any { return o.c.Upvotes })
	cdetail("viewerHasUpvoted", func(o *dcommentObj) any { return o.det.upvoted })
	cdetail("reactionGroups", func(o *dcommentObj) any { return groups(store.ReactDiscussionComment, o.c.ID, o.det.rollup) })
	dc("viewerCanUpvote", func(ctx context.Context, o *dcommentObj) any {
		return signedIn(ctx) && (!o.disc.d.Locked || o.disc.repo.perm >= authz.Write)
	})
	dc("viewerCanReact", func(ctx context.Context, o *dcommentObj) any {
		return signedIn(ctx) && (!o.disc.d.Locked || o.disc.repo.perm >= authz.Write)
	})
	dc("viewerDidAuthor", func(ctx context.Context, o *dcommentObj) any { return cauthor(ctx, o) })
	dc("viewerCanUpdate", func(ctx context.Context, o *dcommentObj) any {
		return cauthor(ctx, o) || o.disc.repo.perm >= authz.Write
	})
	dc("viewerCanDelete", func(ctx context.Context, o *dcommentObj) any {
		return cauthor(ctx, o) || o.disc.repo.perm >= authz.Triage
	})
	markable := func(ctx context.Context, o *dcommentObj) bool {
		return o.c.ReplyToID == 0 && (author(ctx, o.disc) || o.disc.repo.perm >= authz.Triage)
	}
	a.schema.Resolve("DiscussionComment", "viewerCanMarkAsAnswer", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		return a.answerable(ctx, b, func(o *dcommentObj, ok bool) any { return ok && markable(ctx, o) && o.disc.d.AnswerID != o.c.ID })
	})
	a.schema.Resolve("DiscussionComment", "viewerCanUnmarkAsAnswer", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		return a.answerable(ctx, b, func(o *dcommentObj, ok bool) any { return ok && markable(ctx, o) && o.disc.d.AnswerID == o.c.ID })
	})
	a.schema.Resolve("DiscussionComment", "replyTo", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var ids []int64
		for _, p := range b.Parents {
			if n := p.(*dcommentObj).c.ReplyToID; n != 0 {
				ids = append(ids, n)
			}
		}
		m, err := a.d.Store.R().DiscussionCommentsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*dcommentObj)
			if c := m[o.c.ReplyToID]; c != nil {
				out[i] = &dcommentObj{c: c, disc: o.disc}
			}
		}
		return out, nil
	})
	a.schema.Resolve("DiscussionComment", "replies", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var ids []int64
		for _, p := range b.Parents {
			if o := p.(*dcommentObj); o.c.ReplyToID == 0 && o.c.Replies > 0 {
				ids = append(ids, o.c.ID)
			}
		}
		m, err := a.d.Store.R().DiscussionRepliesOf(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*dcommentObj)
			list := make([]*dcommentObj, len(m[o.c.ID]))
			for j, c := range m[o.c.ID] {
				list[j] = &dcommentObj{c: c, disc: o.disc}
			}
			conn, err := slicePage(list, b, "replies")
			if err != nil {
				return nil, err
			}
			out[i] = conn
		}
		return out, nil
	})
}

// answerable runs f on each comment with whether its discussion's
// category takes answers (categories load once per batch).
func (a *API) answerable(ctx context.Context, b *engine.Batch, f func(o *dcommentObj, ok bool) any) ([]any, error) {
	var discs []any
	for _, p := range b.Parents {
		discs = append(discs, p.(*dcommentObj).disc)
	}
	if err := a.loadDiscDetails(ctx, discs); err != nil {
		return nil, err
	}
	out := make([]any, len(b.Parents))
	for i, p := range b.Parents {
		o := p.(*dcommentObj)
		out[i] = f(o, o.disc.det.category != nil && o.disc.det.category.Answerable())
	}
	return out, nil
}

func accountOrNil(a *model.Account) any {
	if a == nil {
		return nil
	}
	return a
}

// emojiChar is the character of the default categories' emoji.
func emojiChar(code string) string {
	switch code {
	case ":mega:":
		return "\U0001F4E3"
	case ":speech_balloon:":
		return "\U0001F4AC"
	case ":bulb:":
		return "\U0001F4A1"
	case ":ballot_box:":
		return "\U0001F5F3\uFE0F"
	case ":pray:":
		return "\U0001F64F"
	case ":raised_hands:":
		return "\U0001F64C"
	}
	return html.EscapeString(code)
}

// searchDiscussions runs a DISCUSSION search into out.
func (a *API) searchDiscussions(ctx context.Context, out *searchConn, query string, limit, offset int) (int, error) {
	res, err := a.discussionsSvc().Search(ctx, from(ctx).caller, query, limit, offset)
	if err != nil {
		return 0, err
	}
	repos := map[int64]*repoObj{}
	for id, x := range res.Repos {
		repos[id] = &repoObj{v: res.Views[id], perm: x.Perm}
	}
	for _, d := range res.Discussions {
		if r := repos[d.RepoID]; r != nil {
			out.nodes = append(out.nodes, &discObj{d: d, repo: r})
		}
	}
	return res.Total, nil
}

package hooks

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/discussions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Discussions webhooks: discussion and discussion_comment. The domain
// events (internal/discussions) carry the discussion, and the comment, as
// they were after the change; categories, labels and the answer are read
// when the payload is built.

// discussionTime reads a snapshot's Unix time.
func discussionTime(d domain, k string) any {
	if d[k] == nil {
		return nil
	}
	return wire.Time(time.Unix(d.int(k), 0))
}

func (b *builder) discussionEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	disc := domain(asMap(d["discussion"]))
	if disc == nil {
		return model.ErrNotFound
	}
	dj, err := b.discussionJSON(ctx, repo, disc)
	if err != nil {
		return err
	}
	out["discussion"] = dj
	ch := domain(asMap(d["changes"]))
	switch action {
	case "transferred":
		to, err := b.repo(ctx, ch.int("new_repository_id"))
		if err != nil {
			return err
		}
		nd := domain(asMap(ch["new_discussion"]))
		if nd == nil {
			return model.ErrNotFound
		}
		nj, err := b.discussionJSON(ctx, to, nd)
		if err != nil {
			return err
		}
		out["changes"] = map[string]any{"new_discussion": nj, "new_repository": b.repoJSON[to.ID]}
	case "edited":
		changes := map[string]any{}
		for _, k := range []string{"title", "body"} {
			if c := asMap(ch[k]); c != nil {
				changes[k] = c
			}
		}
		out["changes"] = changes
	case "category_changed":
		from := domain(asMap(asMap(ch["category"])["from"]))
		cat, err := b.discussionCategory(ctx, repo, from.int("id"))
		if err != nil {
			return err
		}
		out["changes"] = map[string]any{"category": map[string]any{"from": cat}}
	case "labeled", "unlabeled":
		ls, err := b.q.LabelsByID(ctx, []int64{ch.int("label_id")})
		if err != nil {
			return err
		}
		l := ls[ch.int("label_id")]
		if l == nil {
			return model.ErrNotFound
		}
		out["label"] = b.s.URLs.ToLabel(repo, l)
	case "answered":
		c, err := b.discussionComment(ctx, repo, disc, domain(asMap(d["comment"])))
		if err != nil {
			return err
		}
		out["answer"] = c
	case "unanswered":
		m, err := b.q.DiscussionCommentsByID(ctx, []int64{ch.int("old_answer_id")})
		if err != nil {
			return err
		}
		c := m[ch.int("old_answer_id")]
		if c == nil {
			return model.ErrNotFound
		}
		var user int64
		if c.User != nil {
			user = c.User.ID
		}
		cj, err := b.discussionComment(ctx, repo, disc, domain{"id": float64(c.ID), "body": c.Body, "user_id": float64(user),
			"reply_to_id": float64(c.ReplyToID), "created_at": float64(c.CreatedAt.Unix()), "updated_at": float64(c.UpdatedAt.Unix()),
			"replies": float64(c.Replies)})
		if err != nil {
			return err
		}
		out["old_answer"] = cj
	}
	return nil
}

func (b *builder) discussionCommentEvent(ctx context.Context, repo *model.Repo, d domain, action string, out map[string]any) error {
	disc := domain(asMap(d["discussion"]))
	com := domain(asMap(d["comment"]))
	if disc == nil || com == nil {
		return model.ErrNotFound
	}
	dj, err := b.discussionJSON(ctx, repo, disc)
	if err != nil {
		return err
	}
	cj, err := b.discussionComment(ctx, repo, disc, com)
	if err != nil {
		return err
	}
	out["discussion"], out["comment"] = dj, cj
	if action == "edited" {
		ch := asMap(d["changes"])
		out["changes"] = map[string]any{"body": asMap(ch["body"])}
	}
	return nil
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func (b *builder) discussionCategory(ctx context.Context, repo *model.Repo, id int64) (map[string]any, error) {
	cats, err := discussions.New(b.s.Store).Categories(ctx, []*model.Repo{repo})
	if err != nil {
		return nil, err
	}
	for _, c := range cats[repo.ID] {
		if c.ID == id {
			return map[string]any{"id": c.ID, "node_id": wire.NodeID3("DIC", repo.ID, c.ID), "repository_id": repo.ID, "emoji": c.Emoji,
				"name": c.Name, "description": c.Description, "created_at": wire.Time(c.CreatedAt), "updated_at": wire.Time(c.UpdatedAt),
				"slug": c.Slug, "is_answerable": c.Answerable()}, nil
		}
	}
	return nil, model.ErrNotFound
}

func (b *builder) association(ctx context.Context, repo *model.Repo, user int64) (string, error) {
	if user == 0 {
		return "NONE", nil
	}
	m, err := b.q.Associations(ctx, [][2]int64{{repo.ID, user}})
	if err != nil {
		return "", err
	}
	if a := m[[2]int64{repo.ID, user}]; a != "" {
		return a, nil
	}
	return "NONE", nil
}

func (b *builder) userJSON(ctx context.Context, id int64) (any, error) {
	acc, err := b.account(ctx, id)
	if err != nil || acc == nil {
		return nil, err
	}
	return b.s.URLs.ToSimpleUser(acc), nil
}

func discussionHTML(repo *model.Repo, b *builder, number int64) string {
	return b.s.URLs.RepoHTMLURL(repo) + "/discussions/" + strconv.FormatInt(number, 10)
}

// discussionJSON is components/schemas/discussion of a snapshot.
func (b *builder) discussionJSON(ctx context.Context, repo *model.Repo, d domain) (map[string]any, error) {
	cat, err := b.discussionCategory(ctx, repo, d.int("category_id"))
	if err != nil {
		return nil, err
	}
	user, err := b.userJSON(ctx, d.int("user_id"))
	if err != nil {
		return nil, err
	}
	chosenBy, err := b.userJSON(ctx, d.int("answer_chosen_by"))
	if err != nil {
		return nil, err
	}
	assoc, err := b.association(ctx, repo, d.int("user_id"))
	if err != nil {
		return nil, err
	}
	labels, err := b.q.DiscussionLabelsOf(ctx, []int64{d.int("id")})
	if err != nil {
		return nil, err
	}
	lj := make([]any, 0, len(labels[d.int("id")]))
	for _, l := range labels[d.int("id")] {
		lj = append(lj, b.s.URLs.ToLabel(repo, l))
	}
	html := discussionHTML(repo, b, d.int("number"))
	var answerURL any
	if a := d.int("answer_id"); a != 0 {
		answerURL = html + "#discussioncomment-" + strconv.FormatInt(a, 10)
	}
	state := "open"
	if d.bool("closed") {
		state = "closed"
	}
	var reason any
	if r := d.str("state_reason"); r != "" {
		reason = strings.ToLower(r)
	}
	return map[string]any{
		"id": d.int("id"), "node_id": wire.NodeID3("D", repo.ID, d.int("id")), "number": d.int("number"), "title": d.str("title"), "body": d.str("body"),
		"html_url": html, "repository_url": b.s.URLs.RepoAPIURL(repo), "category": cat, "user": user, "author_association": assoc,
		"state": state, "state_reason": reason, "locked": d.bool("locked"), "active_lock_reason": nil, "comments": d.int("comments"),
		"created_at": discussionTime(d, "created_at"), "updated_at": discussionTime(d, "updated_at"),
		"answer_html_url": answerURL, "answer_chosen_at": discussionTime(d, "answer_chosen_at"), "answer_chosen_by": chosenBy,
		"labels": lj, "reactions": b.reactionsJSON(ctx, html, "discussion", d.int("id"), d.int("reactions")),
		"timeline_url": b.s.URLs.RepoAPIURL(repo) + "/discussions/" + strconv.FormatInt(d.int("number"), 10) + "/timeline",
	}, nil
}

// discussionComment is components/schemas/webhooks_comment of a snapshot.
func (b *builder) discussionComment(ctx context.Context, repo *model.Repo, disc, c domain) (map[string]any, error) {
	user, err := b.userJSON(ctx, c.int("user_id"))
	if err != nil {
		return nil, err
	}
	assoc, err := b.association(ctx, repo, c.int("user_id"))
	if err != nil {
		return nil, err
	}
	var parent any
	if p := c.int("reply_to_id"); p != 0 {
		parent = p
	}
	html := discussionHTML(repo, b, disc.int("number")) + "#discussioncomment-" + strconv.FormatInt(c.int("id"), 10)
	return map[string]any{
		"id": c.int("id"), "node_id": wire.NodeID3("DC", repo.ID, c.int("id")), "html_url": html, "parent_id": parent,
		"child_comment_count": c.int("replies"), "repository_url": b.s.URLs.RepoAPIURL(repo), "discussion_id": disc.int("id"),
		"author_association": assoc, "user": user, "created_at": discussionTime(c, "created_at"), "updated_at": discussionTime(c, "updated_at"),
		"body": c.str("body"), "reactions": b.reactionsJSON(ctx, html, "discussion_comment", c.int("id"), c.int("reactions")),
	}, nil
}

// reactionsJSON is the reactions rollup of a discussion or comment.
func (b *builder) reactionsJSON(ctx context.Context, url, subject string, id, count int64) map[string]any {
	out := map[string]any{"url": url + "/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0}
	if count == 0 {
		return out
	}
	r, err := b.q.ReactionRollups(ctx, subject, []int64{id})
	if err != nil {
		return out
	}
	total := 0
	for k, n := range r[id] {
		out[k] = n
		total += n
	}
	out["total_count"] = total
	return out
}

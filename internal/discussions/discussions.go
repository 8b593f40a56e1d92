// Package discussions is the discussions service: a repository's
// discussion categories (GitHub's six defaults until a maintainer changes
// them), discussions (numbered with the repository's issues), threaded
// comments (one level of replies), answers of Q&A discussions, closing
// with a reason, locking, pinning, upvotes, labels, reactions, transfers
// between repositories and issues converted to discussions. GraphQL and
// the web call it; it authorizes with the caller's repository permission
// (authz), writes in one transaction and appends the discussion and
// discussion_comment events.
package discussions

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the discussions service.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Access is a caller on a repository with their permission there.
type Access struct {
	Caller *authz.Caller
	Repo   *model.Repo
	Perm   authz.Permission
}

func (x *Access) org() int64 {
	if x.Repo.Owner != nil && x.Repo.Owner.IsOrg() {
		return x.Repo.Owner.ID
	}
	return 0
}

func (x *Access) userID() int64 { return x.Caller.UserID() }

// author reports whether the caller wrote something of user.
func (x *Access) author(user *model.Account) bool {
	return user != nil && x.Caller.User != nil && user.ID == x.Caller.User.ID
}

// ErrDisabled answers writes to a repository whose discussions are off.
var ErrDisabled = model.Unprocessable("Discussions are disabled for this repository.")

// Readable checks that the caller may see the repository's discussions:
// 404 when they may not see the repository or it has discussions off.
func (x *Access) Readable() error {
	if !authz.CanSee(x.Perm) || !x.Repo.HasDiscussions {
		return model.ErrNotFound
	}
	return nil
}

// writable checks that the caller may take part: signed in, a token that
// may write, discussions on, the repository not archived.
func (x *Access) writable() error {
	if err := x.Readable(); err != nil {
		return err
	}
	if x.Caller == nil || x.Caller.User == nil {
		return model.Forbidden("Resource not accessible by integration")
	}
	if err := deps.RequireScope(x.Caller, "public_repo"); err != nil {
		return err
	}
	return x.Repo.WriteRefusal()
}

// need refuses a caller below permission p unless allowed (the author).
func (x *Access) need(p authz.Permission, allowed bool, what string) error {
	if allowed || x.Perm >= p {
		return nil
	}
	login := "Viewer"
	if x.Caller != nil && x.Caller.User != nil {
		login = x.Caller.User.Login
	}
	return model.Forbidden(login + " does not have the correct permissions to execute `" + what + "`")
}

// Formats of categories.
const (
	FormatOpen         = "open"
	FormatQuestion     = "question"
	FormatAnnouncement = "announcement"
	FormatPoll         = "poll"
)

// slots is how many categories a repository may have (GitHub allows 25):
// a category's id is its repository's id times slots plus its slot, so
// the defaults have ids before they are stored.
const slots = 32

// defaults are the categories GitHub gives a repository.
var defaults = []struct{ slug, name, emoji, desc, format string }{
	{"announcements", "Announcements", ":mega:", "Updates from maintainers", FormatAnnouncement},
	{"general", "General", ":speech_balloon:", "Chat about anything and everything here", FormatOpen},
	{"ideas", "Ideas", ":bulb:", "Share ideas for new features", FormatOpen},
	{"polls", "Polls", ":ballot_box:", "Take a vote from the community", FormatPoll},
	{"q-a", "Q&A", ":pray:", "Ask the community for help", FormatQuestion},
	{"show-and-tell", "Show and tell", ":raised_hands:", "Show off something you've made", FormatOpen},
}

// Defaults is a repository's default categories.
func Defaults(r *model.Repo) []*model.DiscussionCategory {
	out := make([]*model.DiscussionCategory, len(defaults))
	for i, d := range defaults {
		out[i] = &model.DiscussionCategory{ID: r.ID*slots + int64(i+1), RepoID: r.ID, Slug: d.slug, Name: d.name, Emoji: d.emoji,
			Description: d.desc, Format: d.format, Position: i, CreatedAt: r.CreatedAt, UpdatedAt: r.CreatedAt}
	}
	return out
}

// CategoryRepo is the repository id a category id belongs to.
func CategoryRepo(id int64) int64 { return id / slots }

// Categories is the categories of repositories, in order (one query).
func (s *Service) Categories(ctx context.Context, repos []*model.Repo) (map[int64][]*model.DiscussionCategory, error) {
	ids := make([]int64, len(repos))
	for i, r := range repos {
		ids[i] = r.ID
	}
	stored, has, err := s.Store.R().DiscussionCategoriesOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64][]*model.DiscussionCategory{}
	for _, r := range repos {
		if has[r.ID] {
			out[r.ID] = stored[r.ID]
		} else {
			out[r.ID] = Defaults(r)
		}
	}
	return out, nil
}

// Category is category id of the repository.
func (s *Service) Category(ctx context.Context, r *model.Repo, id int64) (*model.DiscussionCategory, error) {
	if CategoryRepo(id) != r.ID {
		return nil, model.ErrNotFound
	}
	all, err := s.Categories(ctx, []*model.Repo{r})
	if err != nil {
		return nil, err
	}
	for _, c := range all[r.ID] {
		if c.ID == id {
			return c, nil
		}
	}
	return nil, model.ErrNotFound
}

// CategoryInput is a category to make or the parts of one to change.
type CategoryInput struct {
	Name, Emoji, Description, Format *string
}

// SaveCategory makes (id 0) or edits a category (maintainers). The first
// change stores the repository's defaults with it.
func (s *Service) SaveCategory(ctx context.Context, x *Access, id int64, in CategoryInput) (*model.DiscussionCategory, error) {
	if err := x.writable(); err != nil {
		return nil, err
	}
	if err := x.need(authz.Maintain, false, "updateDiscussionCategory"); err != nil {
		return nil, err
	}
	all, err := s.Categories(ctx, []*model.Repo{x.Repo})
	if err != nil {
		return nil, err
	}
	list := all[x.Repo.ID]
	var c *model.DiscussionCategory
	if id == 0 {
		used := map[int64]bool{}
		for _, o := range list {
			used[o.ID] = true
		}
		for slot := int64(1); slot < slots && c == nil; slot++ {
			if !used[x.Repo.ID*slots+slot] {
				now := s.Store.Now()
				c = &model.DiscussionCategory{ID: x.Repo.ID*slots + slot, RepoID: x.Repo.ID, Format: FormatOpen, Emoji: ":speech_balloon:",
					Position: len(list), CreatedAt: now, UpdatedAt: now}
			}
		}
		if c == nil || len(list) >= 25 {
			return nil, model.Unprocessable("A repository may have at most 25 discussion categories.")
		}
		list = append(list, c)
	} else {
		for _, o := range list {
			if o.ID == id {
				c = o
			}
		}
		if c == nil {
			return nil, model.ErrNotFound
		}
	}
	if in.Name != nil {
		c.Name = strings.TrimSpace(*in.Name)
	}
	if c.Name == "" {
		return nil, model.Invalid("DiscussionCategory", "name", "missing_field")
	}
	if in.Emoji != nil {
		c.Emoji = *in.Emoji
	}
	if in.Description != nil {
		c.Description = *in.Description
	}
	if in.Format != nil {
		switch *in.Format {
		case FormatOpen, FormatQuestion, FormatAnnouncement, FormatPoll:
			c.Format = *in.Format
		default:
			return nil, model.Invalid("DiscussionCategory", "format", "invalid")
		}
	}
	c.Slug = slug(c.Name)
	for _, o := range list {
		if o != c && o.Slug == c.Slug {
			return nil, model.Custom("DiscussionCategory", "name", "Name has already been taken")
		}
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		return tx.StoreDiscussionCategories(ctx, x.Repo.ID, list)
	})
	return c, err
}

// DeleteCategory deletes a category (maintainers); its discussions move
// to moveTo, another category of the repository.
func (s *Service) DeleteCategory(ctx context.Context, x *Access, id, moveTo int64) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Maintain, false, "deleteDiscussionCategory"); err != nil {
		return err
	}
	all, err := s.Categories(ctx, []*model.Repo{x.Repo})
	if err != nil {
		return err
	}
	var keep []*model.DiscussionCategory
	found, target := false, false
	for _, c := range all[x.Repo.ID] {
		switch c.ID {
		case id:
			found = true
		default:
			keep = append(keep, c)
			target = target || c.ID == moveTo
		}
	}
	if !found {
		return model.ErrNotFound
	}
	if !target {
		return model.Custom("DiscussionCategory", "category", "Discussions must move to another category of the repository")
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.StoreDiscussionCategories(ctx, x.Repo.ID, keep); err != nil {
			return err
		}
		if err := tx.DeleteDiscussionCategory(ctx, id); err != nil {
			return err
		}
		return tx.MoveDiscussionsToCategory(ctx, id, moveTo)
	})
}

func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// Get is discussion number of the repository.
func (s *Service) Get(ctx context.Context, x *Access, number int64) (*model.Discussion, error) {
	if err := x.Readable(); err != nil {
		return nil, err
	}
	return s.Store.R().DiscussionByNumber(ctx, x.Repo.ID, number)
}

// List is a page of the repository's discussions and how many there are.
func (s *Service) List(ctx context.Context, x *Access, f store.DiscussionQuery, page func(total int) (int, int)) ([]*model.Discussion, int, error) {
	if err := x.Readable(); err != nil {
		return nil, 0, nil // a repository without discussions lists none
	}
	f.RepoID = x.Repo.ID
	q := s.Store.R()
	total, err := q.CountDiscussions(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	start, end := page(total)
	if end <= start {
		return nil, total, nil
	}
	list, err := q.DiscussionsPage(ctx, f, end-start, start)
	return list, total, err
}

func validTitle(t string) error {
	if strings.TrimSpace(t) == "" {
		return model.Invalid("Discussion", "title", "missing_field")
	}
	if utf8.RuneCountInString(t) > 256 {
		return model.Custom("Discussion", "title", "Title is too long (maximum is 256 characters)")
	}
	return nil
}

const maxBody = 65536

func validBody(field, b string) error {
	if utf8.RuneCountInString(b) > maxBody {
		return model.Custom("Discussion", field, "Body is too long (maximum is 65536 characters)")
	}
	return nil
}

// Create opens a discussion in a category: anyone who may read the
// repository, but only maintainers in an announcement category.
func (s *Service) Create(ctx context.Context, x *Access, categoryID int64, title, body string) (*model.Discussion, error) {
	if err := x.writable(); err != nil {
		return nil, err
	}
	cat, err := s.Category(ctx, x.Repo, categoryID)
	if err != nil {
		return nil, model.Unprocessable("Could not resolve to a DiscussionCategory with the given id.")
	}
	if cat.Format == FormatAnnouncement {
		if err := x.need(authz.Maintain, false, "createDiscussion"); err != nil {
			return nil, err
		}
	}
	if err := validTitle(title); err != nil {
		return nil, err
	}
	if err := validBody("body", body); err != nil {
		return nil, err
	}
	d := &model.Discussion{RepoID: x.Repo.ID, CategoryID: cat.ID, Title: title, Body: body, User: x.Caller.User}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateDiscussion(ctx, d); err != nil {
			return err
		}
		return s.event(ctx, tx, x, "created", d, nil, nil)
	})
	return d, err
}

// Input is the parts of a discussion to change; nil leaves one alone.
type Input struct {
	Title, Body *string
	CategoryID  *int64
}

// Update edits a discussion: its author or triagers.
func (s *Service) Update(ctx context.Context, x *Access, d *model.Discussion, in Input) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Triage, x.author(d.User), "updateDiscussion"); err != nil {
		return err
	}
	if d.Locked && x.Perm < authz.Write {
		return model.Forbidden("This discussion is locked.")
	}
	changes := map[string]any{}
	if in.Title != nil && *in.Title != d.Title {
		if err := validTitle(*in.Title); err != nil {
			return err
		}
		changes["title"] = map[string]any{"from": d.Title}
		d.Title = *in.Title
	}
	if in.Body != nil && *in.Body != d.Body {
		if err := validBody("body", *in.Body); err != nil {
			return err
		}
		changes["body"] = map[string]any{"from": d.Body}
		d.Body = *in.Body
	}
	action := "edited"
	if in.CategoryID != nil && *in.CategoryID != d.CategoryID {
		cat, err := s.Category(ctx, x.Repo, *in.CategoryID)
		if err != nil {
			return model.Unprocessable("Could not resolve to a DiscussionCategory with the given id.")
		}
		if cat.Format == FormatAnnouncement {
			if err := x.need(authz.Maintain, false, "updateDiscussion"); err != nil {
				return err
			}
		}
		if d.AnswerID != 0 && !cat.Answerable() {
			d.AnswerID, d.AnswerChosenAt, d.AnswerChosenBy = 0, nil, 0
		}
		changes["category"] = map[string]any{"from": map[string]any{"id": d.CategoryID}}
		d.CategoryID = cat.ID
		if len(changes) == 1 {
			action = "category_changed"
		}
	}
	if len(changes) == 0 {
		return nil
	}
	if changes["title"] != nil || changes["body"] != nil {
		now := s.Store.Now()
		d.LastEditedAt, d.EditorID = &now, x.userID()
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateDiscussion(ctx, d); err != nil {
			return err
		}
		return s.event(ctx, tx, x, action, d, nil, changes)
	})
}

// Delete deletes a discussion (triagers, as on GitHub).
func (s *Service) Delete(ctx context.Context, x *Access, d *model.Discussion) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Triage, false, "deleteDiscussion"); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.event(ctx, tx, x, "deleted", d, nil, nil); err != nil {
			return err
		}
		return tx.DeleteDiscussion(ctx, d.ID)
	})
}

// Close reasons.
var closeReasons = map[string]bool{"RESOLVED": true, "OUTDATED": true, "DUPLICATE": true}

// Close closes a discussion with a reason (RESOLVED when empty): its
// author or triagers.
func (s *Service) Close(ctx context.Context, x *Access, d *model.Discussion, reason string) error {
	if reason == "" {
		reason = "RESOLVED"
	}
	if !closeReasons[reason] {
		return model.Unprocessable("Invalid reason: " + reason)
	}
	return s.setClosed(ctx, x, d, true, reason, "closeDiscussion")
}

// Reopen reopens a closed discussion.
func (s *Service) Reopen(ctx context.Context, x *Access, d *model.Discussion) error {
	return s.setClosed(ctx, x, d, false, "REOPENED", "reopenDiscussion")
}

func (s *Service) setClosed(ctx context.Context, x *Access, d *model.Discussion, closed bool, reason, what string) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Triage, x.author(d.User), what); err != nil {
		return err
	}
	if d.Closed == closed {
		if closed {
			return model.Unprocessable("Discussion is already closed")
		}
		return model.Unprocessable("Discussion is not closed")
	}
	d.Closed, d.StateReason = closed, reason
	action := "reopened"
	if closed {
		now := s.Store.Now()
		d.ClosedAt, action = &now, "closed"
	} else {
		d.ClosedAt = nil
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateDiscussion(ctx, d); err != nil {
			return err
		}
		return s.event(ctx, tx, x, action, d, nil, nil)
	})
}

// Lock reasons (GraphQL's LockReason).
var lockReasons = map[string]bool{"OFF_TOPIC": true, "RESOLVED": true, "SPAM": true, "TOO_HEATED": true}

// Lock locks (or, with lock false, unlocks) a discussion: triagers.
// Only collaborators with write access comment on a locked discussion.
func (s *Service) Lock(ctx context.Context, x *Access, d *model.Discussion, lock bool, reason string) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Triage, false, map[bool]string{true: "lockLockable", false: "unlockLockable"}[lock]); err != nil {
		return err
	}
	if reason != "" && !lockReasons[reason] {
		return model.Unprocessable("Invalid lock reason: " + reason)
	}
	if d.Locked == lock {
		return nil
	}
	d.Locked, d.LockReason = lock, ""
	action := "unlocked"
	if lock {
		d.LockReason, action = reason, "locked"
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateDiscussion(ctx, d); err != nil {
			return err
		}
		return s.event(ctx, tx, x, action, d, nil, nil)
	})
}

// Pin pins (or unpins) a discussion to the repository's list: triagers.
// A repository pins at most four.
func (s *Service) Pin(ctx context.Context, x *Access, d *model.Discussion, pin bool) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Triage, false, "pinDiscussion"); err != nil {
		return err
	}
	if (d.PinnedAt != nil) == pin {
		return nil
	}
	action := "unpinned"
	if pin {
		now := s.Store.Now()
		d.PinnedAt, action = &now, "pinned"
	} else {
		d.PinnedAt = nil
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if pin {
			list, err := tx.DiscussionsPage(ctx, store.DiscussionQuery{RepoID: x.Repo.ID, PinnedFirst: true}, 5, 0)
			if err != nil {
				return err
			}
			n := 0
			for _, o := range list {
				if o.PinnedAt != nil {
					n++
				}
			}
			if n >= 4 {
				return model.Unprocessable("A repository can have at most 4 pinned discussions.")
			}
		}
		if err := tx.UpdateDiscussion(ctx, d); err != nil {
			return err
		}
		return s.event(ctx, tx, x, action, d, nil, nil)
	})
}

// SetLabels adds (on) or removes labels of the repository on a
// discussion: triagers.
func (s *Service) SetLabels(ctx context.Context, x *Access, d *model.Discussion, labels []*model.Label, on bool) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Triage, false, "addLabelsToLabelable"); err != nil {
		return err
	}
	ids := make([]int64, 0, len(labels))
	for _, l := range labels {
		if l.RepoID != x.Repo.ID {
			return model.ErrNotFound
		}
		ids = append(ids, l.ID)
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		have, err := tx.DiscussionLabelsOf(ctx, []int64{d.ID})
		if err != nil {
			return err
		}
		had := map[int64]bool{}
		for _, l := range have[d.ID] {
			had[l.ID] = true
		}
		if err := tx.SetDiscussionLabels(ctx, d.ID, ids, on); err != nil {
			return err
		}
		for _, l := range labels {
			if had[l.ID] != on {
				action := "unlabeled"
				if on {
					action = "labeled"
				}
				if err := s.event(ctx, tx, x, action, d, nil, map[string]any{"label_id": l.ID}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Upvote adds (or removes) the caller's upvote of a discussion or a
// comment (subject store.UpvoteDiscussion or store.UpvoteComment).
func (s *Service) Upvote(ctx context.Context, x *Access, subject string, id int64, on bool) error {
	if err := x.writable(); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		_, err := tx.SetUpvote(ctx, subject, id, x.userID(), on)
		return err
	})
}

// React adds a reaction (content as REST names it: +1, heart, ...) of the
// caller to a discussion or comment (store.ReactDiscussion,
// store.ReactDiscussionComment).
func (s *Service) React(ctx context.Context, x *Access, subject string, id int64, content string, on bool) error {
	if err := x.writable(); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if on {
			_, _, err := tx.AddReaction(ctx, x.Repo.ID, subject, id, x.userID(), content)
			return err
		}
		list, _, err := tx.ListReactions(ctx, subject, id, content, 1000, 0)
		if err != nil {
			return err
		}
		for _, r := range list {
			if r.User != nil && r.User.ID == x.userID() {
				return tx.DeleteReaction(ctx, subject, id, r.ID)
			}
		}
		return nil
	})
}

// event appends a discussion event: the discussion after the change, the
// comment of a discussion_comment event, and what changed.
func (s *Service) event(ctx context.Context, tx store.Q, x *Access, action string, d *model.Discussion, c *model.DiscussionComment, changes map[string]any) error {
	typ := "discussion"
	p := map[string]any{"action": action, "discussion_id": d.ID, "number": d.Number, "category_id": d.CategoryID, "discussion": snapshot(d)}
	if c != nil {
		if action != "answered" { // answered is the discussion's, with its answer
			typ = "discussion_comment"
		}
		p["comment_id"] = c.ID
		p["comment"] = commentSnapshot(c)
	}
	if changes != nil {
		p["changes"] = changes
	}
	return tx.AppendEvent(ctx, typ+"."+action, x.userID(), d.RepoID, x.org(), p)
}

// snapshot is a discussion as an event keeps it (a deleted one's webhook
// needs the copy).
func snapshot(d *model.Discussion) map[string]any {
	var user int64
	if d.User != nil {
		user = d.User.ID
	}
	return map[string]any{"id": d.ID, "number": d.Number, "title": d.Title, "body": d.Body, "user_id": user, "category_id": d.CategoryID,
		"closed": d.Closed, "state_reason": d.StateReason, "locked": d.Locked, "answer_id": d.AnswerID, "answer_chosen_by": d.AnswerChosenBy,
		"answer_chosen_at": unixOr(d.AnswerChosenAt), "comments": d.Comments, "created_at": d.CreatedAt.Unix(), "updated_at": d.UpdatedAt.Unix(),
		"closed_at": unixOr(d.ClosedAt), "upvotes": d.Upvotes, "reactions": d.Reactions}
}

func commentSnapshot(c *model.DiscussionComment) map[string]any {
	var user int64
	if c.User != nil {
		user = c.User.ID
	}
	return map[string]any{"id": c.ID, "body": c.Body, "user_id": user, "reply_to_id": c.ReplyToID, "created_at": c.CreatedAt.Unix(),
		"updated_at": c.UpdatedAt.Unix(), "replies": c.Replies, "reactions": c.Reactions}
}

func unixOr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Unix()
}

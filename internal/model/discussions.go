package model

import "time"

// DiscussionCategory is a category of a repository's discussions. Format
// is "open" (open-ended discussion), "question" (Q&A: comments may be
// marked as the answer), "announcement" (maintainers post) or "poll".
type DiscussionCategory struct {
	ID          int64
	RepoID      int64
	Slug        string
	Name        string
	Emoji       string // GitHub's :shortcode:
	Description string
	Format      string
	Position    int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Answerable reports whether comments of the category's discussions may
// be marked as the answer.
func (c *DiscussionCategory) Answerable() bool { return c.Format == "question" }

// Discussion is a discussion of a repository; its number is taken from
// the repository's issue numbers, as on GitHub.
type Discussion struct {
	ID             int64
	RepoID         int64
	Number         int64
	CategoryID     int64
	Title          string
	Body           string
	User           *Account // slim; nil when the author is gone
	EditorID       int64
	Closed         bool
	StateReason    string // RESOLVED, OUTDATED, DUPLICATE (closed), REOPENED
	ClosedAt       *time.Time
	Locked         bool
	LockReason     string
	PinnedAt       *time.Time
	AnswerID       int64
	AnswerChosenAt *time.Time
	AnswerChosenBy int64
	Upvotes        int
	Reactions      int
	Comments       int
	LastEditedAt   *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// DiscussionComment is a comment of a discussion, or a reply to one
// (ReplyToID: replies are one level deep, as on GitHub).
type DiscussionComment struct {
	ID           int64
	DiscussionID int64
	RepoID       int64
	ReplyToID    int64
	Body         string
	User         *Account // slim
	EditorID     int64
	Upvotes      int
	Reactions    int
	Replies      int // top-level comments: how many replies
	LastEditedAt *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

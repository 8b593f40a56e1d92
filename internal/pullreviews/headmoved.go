package pullreviews

import (
	"context"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// HeadMoved places a pull request's line comments in its new diff after
// its head (or base) moved: a commented RIGHT line is followed through the
// change from the comment's commit to the new head; a comment whose line
// changed or left the diff becomes outdated (position, line and start line
// null, commit_id kept), the others get their new position and line and
// the new head as commit_id. original_* never change. The pulls service
// calls it (pulls.Service.HeadMoved) outside any transaction.
func (s *Service) HeadMoved(ctx context.Context, repo *model.Repo, p *model.Pull) error {
	list, err := s.st.R().LineReviewComments(ctx, p.IssueID)
	if err != nil || len(list) == 0 {
		return err
	}
	before := make([]spot, len(list))
	for i, c := range list {
		before[i] = spotOf(c)
	}
	if err := s.toHead(ctx, repo, p, list); err != nil {
		return err
	}
	var moved []*model.PullReviewComment
	for i, c := range list {
		if spotOf(c) != before[i] {
			moved = append(moved, c)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		for _, c := range moved {
			if err := tx.SetReviewCommentPlace(ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// toHead places line comments (made at their CommitID) in the pull
// request's diff at its head, or marks them outdated; nothing is stored.
func (s *Service) toHead(ctx context.Context, repo *model.Repo, p *model.Pull, list []*model.PullReviewComment) error {
	d, err := s.diffAt(ctx, repo, p, p.HeadSHA)
	if err != nil {
		return err
	}
	g := s.git.Open(repo.ID)
	// One diff from each old commit to the new head, by path.
	inter := map[string]map[string]gitrepo.FileChange{}
	interdiff := func(from string) map[string]gitrepo.FileChange {
		if m, ok := inter[from]; ok {
			return m
		}
		files, err := g.Diff(ctx, from, p.HeadSHA, gitrepo.DiffOptions{})
		if err != nil {
			inter[from] = nil // the old commit is gone: everything is outdated
			return nil
		}
		m := make(map[string]gitrepo.FileChange, len(files))
		for _, f := range files {
			m[f.Path] = f
			if f.OldPath != "" {
				m[f.OldPath] = f
			}
		}
		inter[from] = m
		return m
	}
	// follow is line n of side at the comment's commit, at the new head.
	follow := func(c *model.PullReviewComment, side string, n int) (int, bool) {
		if side == "LEFT" || c.CommitID == p.HeadSHA {
			return n, true
		}
		m := interdiff(c.CommitID)
		if m == nil {
			return 0, false
		}
		f, changed := m[c.Path]
		if !changed {
			return n, true
		}
		if f.Path != c.Path || f.Status == "removed" || !f.HasPatch {
			return 0, false
		}
		return carry(f.Patch, n)
	}
	for _, c := range list {
		if c.SubjectType == "line" {
			relocate(c, d, follow)
		}
	}
	return nil
}

// spot is where a comment sits, comparable.
type spot struct {
	pos, line, start int64
	commit           string
}

func spotOf(c *model.PullReviewComment) spot {
	v := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	return spot{v(c.Position), v(c.Line), v(c.StartLine), c.CommitID}
}

// relocate moves c to its place in d, or marks it outdated.
func relocate(c *model.PullReviewComment, d *diff, follow func(*model.PullReviewComment, string, int) (int, bool)) {
	outdated := func() { c.Position, c.Line, c.StartLine = nil, nil, nil }
	if c.Line == nil {
		outdated()
		return
	}
	side := "RIGHT"
	if c.Side != nil {
		side = *c.Side
	}
	fp := d.files[c.Path]
	n, ok := follow(c, side, int(*c.Line))
	if fp == nil || !ok {
		outdated()
		return
	}
	e := fp.find(side, n)
	if e == nil {
		outdated()
		return
	}
	var start *int64
	if c.StartLine != nil {
		ss := side
		if c.StartSide != nil {
			ss = *c.StartSide
		}
		sn, ok := follow(c, ss, int(*c.StartLine))
		es := fp.find(ss, sn)
		if !ok || es == nil || es.header != e.header {
			outdated()
			return
		}
		start = i64(sn)
	}
	c.Position, c.Line, c.StartLine, c.CommitID = i64(e.pos), i64(n), start, d.head
}

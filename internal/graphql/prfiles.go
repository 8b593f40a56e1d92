package graphql

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/graphql/engine"
)

// The parts of a pull request gh pr view --json reads from git: its changed
// files, its commits' messages and authors, the merge commit and the test
// merge.

// changedFile is a PullRequestChangedFile.
type changedFile struct{ f gitrepo.FileChange }

// gitActor is a GitActor: a commit's author or committer.
type gitActor struct{ sig gitrepo.Signature }

// mergeBase is where a pull request's diff starts: the merge base of its
// base and head (the base commit when git finds none).
func (a *API) mergeBase(ctx context.Context, g *gitrepo.Repo, o *pullObj) (string, error) {
	mb, err := g.MergeBase(ctx, o.p.BaseSHA, o.p.HeadSHA)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return o.p.BaseSHA, nil
	}
	return mb, err
}

// loadCommits reads the git commits of a batch of Commit objects, one
// cat-file round per repository; the objects keep them for the batch's
// other fields.
func (a *API) loadCommits(ctx context.Context, parents []any) error {
	byRepo := map[int64][]*commitObj{}
	for _, p := range parents {
		o := p.(*commitObj)
		if o.git == nil {
			byRepo[o.repo.v.Repo.ID] = append(byRepo[o.repo.v.Repo.ID], o)
		}
	}
	for id, list := range byRepo {
		ids := make([]string, len(list))
		for i, o := range list {
			ids[i] = o.sha
		}
		commits, err := a.d.Git.Open(id).Commits(ctx, ids)
		if err != nil {
			return err
		}
		found := make(map[string]*gitrepo.Commit, len(commits))
		for _, c := range commits {
			found[c.OID] = c
		}
		for _, o := range list {
			if o.git = found[o.sha]; o.git == nil {
				o.git = &gitrepo.Commit{OID: o.sha} // gone (a force push): an empty message
			}
		}
	}
	return nil
}

// commitField resolves a Commit field from its git commit.
func (a *API) commitField(f func(c *gitrepo.Commit) any) engine.Resolver {
	return func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.loadCommits(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			out[i] = f(p.(*commitObj).git)
		}
		return out, nil
	}
}

// headline and body split a commit message as GitHub shows it: the first
// line, and the rest after the blank line.
func headline(msg string) string {
	h, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n")
	return strings.TrimRight(h, "\r ")
}

func messageBody(msg string) string {
	_, rest, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n")
	return strings.TrimSpace(rest)
}

func (a *API) registerPullFiles() {
	a.connectionTypes("PullRequestChangedFileConnection", "PullRequestChangedFileEdge")
	a.connectionTypes("GitActorConnection", "GitActorEdge")

	a.schema.Resolve("PullRequest", "files", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*pullObj)
		if a.d.Git == nil {
			return slicePage([]any(nil), b, "files")
		}
		g := a.d.Git.Open(o.iss.repo.v.Repo.ID)
		mb, err := a.mergeBase(ctx, g, o)
		if err != nil {
			return nil, err
		}
		// Stats only: no file's patch is kept.
		files, err := g.DiffStats(ctx, mb, o.p.HeadSHA)
		if errors.Is(err, gitrepo.ErrNotFound) {
			files = nil
		} else if err != nil {
			return nil, err
		}
		list := make([]*changedFile, len(files))
		for i := range files {
			list[i] = &changedFile{f: files[i]}
		}
		return slicePage(list, b, "files")
	}))
	cf := func(name string, f func(c *changedFile) any) {
		a.field("PullRequestChangedFile", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*changedFile)), nil })
	}
	cf("path", func(c *changedFile) any { return c.f.Path })
	cf("additions", func(c *changedFile) any { return c.f.Additions })
	cf("deletions", func(c *changedFile) any { return c.f.Deletions })
	cf("changeType", func(c *changedFile) any {
		switch c.f.Status {
		case "added":
			return "ADDED"
		case "removed":
			return "DELETED"
		case "renamed":
			return "RENAMED"
		case "copied":
			return "COPIED"
		case "changed":
			return "CHANGED"
		}
		return "MODIFIED"
	})

	a.field("PullRequest", "fullDatabaseId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*pullObj).p.IssueID, nil
	})
	a.field("PullRequest", "mergeCommit", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*pullObj)
		if !o.p.Merged() || o.p.MergeCommitSHA == nil {
			return nil, nil
		}
		return &commitObj{repo: o.iss.repo, sha: *o.p.MergeCommitSHA}, nil
	})
	a.field("PullRequest", "potentialMergeCommit", func(_ context.Context, p any, _ map[string]any) (any, error) {
		// The test merge of the last mergeability check, while it is
		// current and clean.
		o := p.(*pullObj)
		if o.p.Merged() || o.iss.is.State != "open" || o.p.MergeCommitSHA == nil || o.p.Mergeable == nil || !*o.p.Mergeable ||
			o.p.CheckedHeadSHA != o.p.HeadSHA {
			return nil, nil
		}
		return &commitObj{repo: o.iss.repo, sha: *o.p.MergeCommitSHA}, nil
	})

	a.schema.Resolve("Commit", "message", a.commitField(func(c *gitrepo.Commit) any { return c.Message }))
	a.schema.Resolve("Commit", "messageHeadline", a.commitField(func(c *gitrepo.Commit) any { return headline(c.Message) }))
	a.schema.Resolve("Commit", "messageBody", a.commitField(func(c *gitrepo.Commit) any { return messageBody(c.Message) }))
	a.schema.Resolve("Commit", "authoredDate", a.commitField(func(c *gitrepo.Commit) any { return c.Author.When }))
	a.schema.Resolve("Commit", "committedDate", a.commitField(func(c *gitrepo.Commit) any { return c.Committer.When }))
	a.schema.Resolve("Commit", "author", a.commitField(func(c *gitrepo.Commit) any { return &gitActor{sig: c.Author} }))
	a.schema.Resolve("Commit", "committer", a.commitField(func(c *gitrepo.Commit) any { return &gitActor{sig: c.Committer} }))
	a.schema.Resolve("Commit", "authors", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.loadCommits(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			// The author, then the co-authors of Co-authored-by trailers.
			c := p.(*commitObj).git
			list := []*gitActor{{sig: c.Author}}
			for _, co := range coAuthors(c.Message) {
				co.When = c.Author.When
				list = append(list, &gitActor{sig: co})
			}
			var err error
			if out[i], err = slicePage(list, b, "authors"); err != nil {
				return nil, err
			}
		}
		return out, nil
	})

	ga := func(name string, f func(g *gitActor) any) {
		a.field("GitActor", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*gitActor)), nil })
	}
	ga("name", func(g *gitActor) any { return g.sig.Name })
	ga("email", func(g *gitActor) any { return g.sig.Email })
	ga("date", func(g *gitActor) any {
		if g.sig.When.IsZero() {
			return nil
		}
		return g.sig.When.Format("2006-01-02T15:04:05-07:00") // GitTimestamp keeps the zone
	})
	a.schema.Resolve("GitActor", "user", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		emails := make([]string, len(b.Parents))
		for i, p := range b.Parents {
			emails[i] = p.(*gitActor).sig.Email
		}
		users, err := a.d.AccountsByCommitEmail(ctx, emails)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, e := range emails {
			if u := users[strings.ToLower(e)]; u != nil {
				out[i] = u
			}
		}
		return out, nil
	})
}

// coAuthors are the Co-authored-by trailers of a commit message.
func coAuthors(msg string) []gitrepo.Signature {
	var out []gitrepo.Signature
	for _, line := range strings.Split(msg, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.EqualFold(k, "Co-authored-by") {
			continue
		}
		name, email, ok := strings.Cut(strings.TrimSpace(v), "<")
		email, closed := strings.CutSuffix(strings.TrimSpace(email), ">")
		if !ok || !closed || email == "" {
			continue
		}
		out = append(out, gitrepo.Signature{Name: strings.TrimSpace(name), Email: email})
	}
	return out
}

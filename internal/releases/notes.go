package releases

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// maxNoteCommits bounds the history release notes look through.
const maxNoteCommits = 10000

// maxPreviousCandidates bounds the releases looked at for the previous
// one.
const maxPreviousCandidates = 50

// NotesInput asks for generated release notes.
type NotesInput struct {
	TagName         string
	TargetCommitish string // used when the tag does not exist ("" is the default branch)
	PreviousTagName string // "" picks the previous release
}

// GenerateNotes writes release notes for a tag as GitHub's default
// configuration does: the pull requests merged since the previous
// release, their new contributors, and the link to the full changelog.
// They are not stored.
func (s *Service) GenerateNotes(ctx context.Context, a Access, in NotesInput) (name, body string, err error) {
	if err := a.mustPush(); err != nil {
		return "", "", err
	}
	if !validTag(in.TagName) {
		return "", "", invalid("tag_name")
	}
	g, err := s.Git.Init(ctx, a.Repo.ID, a.Repo.DefaultBranch)
	if err != nil {
		return "", "", err
	}
	head, tagged, err := s.tagCommit(ctx, g, in.TagName)
	if err != nil {
		return "", "", err
	}
	if !tagged {
		if head, err = s.target(ctx, a.Repo, in.TargetCommitish); err != nil {
			return "", "", err
		}
	}
	if in.PreviousTagName != "" {
		if !validTag(in.PreviousTagName) {
			return "", "", invalid("previous_tag_name")
		}
		if _, ok, err := s.tagCommit(ctx, g, in.PreviousTagName); err != nil {
			return "", "", err
		} else if !ok {
			return "", "", invalid("previous_tag_name")
		}
	}
	return s.notes(ctx, a, g, in.TagName, head, in.PreviousTagName)
}

// notes are the name and body of release notes for tag at commit head,
// since previous (a tag; "" finds the previous release).
func (s *Service) notes(ctx context.Context, a Access, g *gitrepo.Repo, tag, head, previous string) (string, string, error) {
	var from string
	if previous != "" {
		c, _, err := s.tagCommit(ctx, g, previous)
		if err != nil {
			return "", "", err
		}
		from = c
	} else {
		var err error
		if previous, from, err = s.previous(ctx, a, g, tag, head); err != nil {
			return "", "", err
		}
	}
	o := gitrepo.LogOptions{Include: []string{head}, Max: maxNoteCommits}
	if from != "" {
		o.Exclude = []string{from}
	}
	shas, _, err := g.RevList(ctx, o)
	if err != nil {
		return "", "", err
	}
	q := s.Store.R()
	pulls, err := q.MergedPullsByCommit(ctx, a.Repo.ID, shas)
	if err != nil {
		return "", "", err
	}
	// A new contributor's first merged pull request is among these.
	var authors []int64
	seen := map[int64]bool{}
	for _, p := range pulls {
		if p.Author != nil && !seen[p.Author.ID] {
			seen[p.Author.ID] = true
			authors = append(authors, p.Author.ID)
		}
	}
	first, err := q.FirstMergedPulls(ctx, a.Repo.ID, authors)
	if err != nil {
		return "", "", err
	}
	repoWeb := s.Web + "/" + a.Repo.FullName()
	pullURL := func(n int64) string { return repoWeb + "/pull/" + strconv.FormatInt(n, 10) }
	var b strings.Builder
	if len(pulls) > 0 {
		b.WriteString("## What's Changed\n")
		for _, p := range pulls {
			b.WriteString("* " + p.Title + " by " + mention(p.Author) + " in " + pullURL(p.Number) + "\n")
		}
		var newcomers []string
		for _, p := range pulls {
			if p.Author != nil && first[p.Author.ID] == p.Number {
				newcomers = append(newcomers, "* "+mention(p.Author)+" made their first contribution in "+pullURL(p.Number)+"\n")
			}
		}
		if len(newcomers) > 0 {
			b.WriteString("\n## New Contributors\n")
			for _, n := range newcomers {
				b.WriteString(n)
			}
		}
		b.WriteString("\n")
	}
	if previous != "" {
		b.WriteString("**Full Changelog**: " + repoWeb + "/compare/" + escapeRef(previous) + "..." + escapeRef(tag))
	} else {
		b.WriteString("**Full Changelog**: " + repoWeb + "/commits/" + escapeRef(tag))
	}
	return tag, b.String(), nil
}

// previous finds the release notes start from: the newest published
// release of another tag whose commit is an ancestor of head.
func (s *Service) previous(ctx context.Context, a Access, g *gitrepo.Repo, tag, head string) (string, string, error) {
	list, err := s.Store.R().RecentPublishedReleases(ctx, a.Repo.ID, maxPreviousCandidates)
	if err != nil {
		return "", "", err
	}
	for _, r := range list {
		if r.TagName == tag {
			continue
		}
		c, ok, err := s.tagCommit(ctx, g, r.TagName)
		if err != nil {
			return "", "", err
		}
		if !ok || c == head {
			continue
		}
		anc, err := g.IsAncestor(ctx, c, head)
		if err != nil && !errors.Is(err, gitrepo.ErrNotFound) {
			return "", "", err
		}
		if anc {
			return r.TagName, c, nil
		}
	}
	return "", "", nil
}

func mention(a *model.Account) string {
	if a == nil {
		return "@ghost"
	}
	return "@" + a.Login
}

// escapeRef escapes a ref name for a URL path, keeping its slashes.
func escapeRef(ref string) string {
	segs := strings.Split(ref, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

package closing

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// refRE finds #N and owner/repo#N mentions.
var refRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_/#&.-])(?:([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100}))?#([0-9]{1,9})\b`)

// Mentioned lists the issues text mentions (#N, owner/repo#N), each once.
func Mentioned(text string) []Ref {
	var out []Ref
	seen := map[Ref]bool{}
	for _, m := range refRE.FindAllStringSubmatch(text, -1) {
		n, err := strconv.ParseInt(m[3], 10, 64)
		if err != nil || n == 0 {
			continue
		}
		r := Ref{strings.ToLower(m[1]), strings.ToLower(m[2]), n}
		if !seen[r] && len(out) < maxRefs {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// target finds the issue r names from repo, with its repository's
// organization id; nil when there is none.
func target(ctx context.Context, tx store.Q, repo *model.Repo, r Ref) (*model.Issue, *model.Repo, error) {
	where := repo
	if !r.Same(repo.Owner.Login, repo.Name) {
		v, err := tx.RepoByName(ctx, r.Owner, r.Repo, 0)
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		where = v.Repo
	}
	is, err := tx.IssueByNumber(ctx, where.ID, r.Number)
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil, nil
	}
	return is, where, err
}

// CrossReference records a cross-referenced event on every issue text
// mentions (a body or a comment of source, in repo), once per referencing
// issue. Who may see the reference is decided when the timeline is read.
func CrossReference(ctx context.Context, tx store.Q, repo *model.Repo, source *model.Issue, actor int64, text string) error {
	for _, r := range Mentioned(text) {
		is, where, err := target(ctx, tx, repo, r)
		if err != nil {
			return err
		}
		if is == nil || is.ID == source.ID {
			continue
		}
		seen, err := tx.HasCrossReference(ctx, is.ID, source.ID)
		if err != nil {
			return err
		}
		if seen {
			continue
		}
		e := &model.IssueEvent{RepoID: where.ID, IssueID: is.ID, ActorID: actor, Event: "cross-referenced", SubjectID: source.ID}
		if err := tx.AddIssueEvent(ctx, e, orgOf(where), map[string]any{"number": is.Number, "source_issue_id": source.ID}); err != nil {
			return err
		}
	}
	return nil
}

// NoteBody records what a new or edited issue or pull request body says:
// cross-references, and for a pull request the issues its closing
// keywords name (closingIssuesReferences), with a connected event on both
// sides of a new link and disconnected of a dropped one. An issue of
// another repository is linked only when the actor may write to it, as
// only then would the merge close it. web is hubd's web address (issue
// URLs under it count).
func NoteBody(ctx context.Context, tx store.Q, web string, repo *model.Repo, source *model.Issue, actor int64) error {
	text := ""
	if source.Body != nil {
		text = *source.Body
	}
	if err := CrossReference(ctx, tx, repo, source, actor, text); err != nil {
		return err
	}
	if !source.IsPull {
		return nil
	}
	var ids []int64
	where := map[int64]*model.Repo{}
	for _, r := range Parse(text, web) {
		is, rp, err := target(ctx, tx, repo, r)
		if err != nil {
			return err
		}
		if is == nil || is.IsPull || is.ID == source.ID {
			continue
		}
		if rp.ID != repo.ID {
			v, err := tx.RepoByID(ctx, rp.ID, actor)
			if err != nil {
				return err
			}
			if authz.RepoPermission(&authz.Caller{User: &model.Account{ID: actor}}, v.Repo, v.Facts) < authz.Write {
				continue
			}
		}
		ids, where[is.ID] = append(ids, is.ID), rp
	}
	added, removed, err := tx.SetClosingReferences(ctx, source.ID, ids)
	if err != nil {
		return err
	}
	for _, change := range []struct {
		kind string
		ids  []int64
	}{{"connected", added}, {"disconnected", removed}} {
		kind := change.kind
		for _, id := range change.ids {
			is, err := tx.IssueByID(ctx, id)
			if err != nil {
				return err
			}
			rp := where[id]
			if rp == nil {
				if v, err := tx.RepoByID(ctx, is.RepoID, 0); err == nil {
					rp = v.Repo
				} else {
					return err
				}
			}
			for _, side := range []struct {
				is   *model.Issue
				repo *model.Repo
			}{{is, rp}, {source, repo}} {
				e := &model.IssueEvent{RepoID: side.repo.ID, IssueID: side.is.ID, ActorID: actor, Event: kind}
				if err := tx.AddIssueEvent(ctx, e, orgOf(side.repo), map[string]any{"number": side.is.Number}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

package issues

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// What issue and comment bodies say about other users and issues:
// @mentions (the mentioned filter) and #N / owner/repo#N references
// (cross-referenced timeline events).

var (
	mentionRE = regexp.MustCompile("(?:^|[^A-Za-z0-9_@/.`-])@([A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9]){0,38})")
	refRE     = regexp.MustCompile(`(?:^|[^A-Za-z0-9_/#&.-])(?:([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100}))?#([0-9]{1,9})\b`)
)

// maxRefs bounds the mentions and references taken from one body.
const maxRefs = 50

// Mentions lists the logins a body mentions, each once.
func Mentions(body string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionRE.FindAllStringSubmatch(body, -1) {
		l := strings.ToLower(m[1])
		if !seen[l] && len(out) < maxRefs {
			seen[l] = true
			out = append(out, m[1])
		}
	}
	return out
}

type issueRef struct {
	owner, repo string // empty: the same repository
	number      int64
}

// references lists the issues a body references, each once.
func references(body string) []issueRef {
	var out []issueRef
	seen := map[issueRef]bool{}
	for _, m := range refRE.FindAllStringSubmatch(body, -1) {
		n, err := strconv.ParseInt(m[3], 10, 64)
		if err != nil || n == 0 {
			continue
		}
		ref := issueRef{strings.ToLower(m[1]), strings.ToLower(m[2]), n}
		if !seen[ref] && len(out) < maxRefs {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	return out
}

// CrossReference records a cross-referenced event on every issue body
// references, once per referencing issue (source). Only issues of
// repositories that exist are recorded; who may see the reference is
// decided when the timeline is read.
func CrossReference(ctx context.Context, tx store.Q, x *Access, source *model.Issue, actor int64, body string) error {
	for _, ref := range references(body) {
		repoID, orgID := x.Repo.ID, x.Org()
		if ref.owner != "" {
			v, err := tx.RepoByName(ctx, ref.owner, ref.repo, 0)
			if err != nil {
				continue
			}
			repoID, orgID = v.Repo.ID, 0
			if v.Repo.Owner.IsOrg() {
				orgID = v.Repo.Owner.ID
			}
		}
		target, err := tx.IssueByNumber(ctx, repoID, ref.number)
		if err != nil || target.ID == source.ID {
			continue
		}
		seen, err := tx.HasCrossReference(ctx, target.ID, source.ID)
		if err != nil {
			return err
		}
		if seen {
			continue
		}
		e := &model.IssueEvent{RepoID: repoID, IssueID: target.ID, ActorID: actor, Event: "cross-referenced", SubjectID: source.ID}
		if err := tx.AddIssueEvent(ctx, e, orgID, map[string]any{"number": target.Number, "source_issue_id": source.ID}); err != nil {
			return err
		}
	}
	return nil
}

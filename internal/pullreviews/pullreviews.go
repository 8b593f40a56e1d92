// Package pullreviews holds the rules of pull request reviews, review
// comments and review requests: who may review, comment, dismiss and
// request, what a review or a comment must hold, where a comment sits in
// the pull request's diff (and where it moves when the head moves), and
// the domain events their changes append. Transports resolve the
// repository and the caller's permission, then call the Service.
package pullreviews

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// MaxBody is GitHub's limit on a review or comment body, in characters.
const MaxBody = 65536

// Service applies the rules; writes run one store transaction each, with
// their domain events. Git work (diffs) happens before the transaction.
type Service struct {
	st  *store.Store
	git *gitrepo.Manager
}

// New makes the service.
func New(st *store.Store, git *gitrepo.Manager) *Service {
	return &Service{st: st, git: git}
}

// Access is who acts on which repository: the transport found the
// repository (404 when hidden) and computed the caller's permission.
type Access struct {
	Repo   *model.Repo
	Perm   authz.Permission
	UserID int64 // 0 for anonymous readers
}

func (a Access) org() int64 {
	if a.Repo.Owner != nil && a.Repo.Owner.IsOrg() {
		return a.Repo.Owner.ID
	}
	return 0
}

// writable refuses changes to archived repositories.
func (a Access) writable() error {
	if err := a.Repo.WriteRefusal(); err != nil {
		return err
	}
	return nil
}

// unprocessable is GitHub's 422 of the review endpoints, whose message
// says what is wrong.
func unprocessable(msg string) error { return model.Unprocessable(msg) }

// checkBody refuses a too long body (a message-only 422, which every
// review operation's error schema accepts).
func checkBody(body string) error {
	if utf8.RuneCountInString(body) > MaxBody {
		return unprocessable("Body is too long (maximum is " + strconv.Itoa(MaxBody) + " characters)")
	}
	return nil
}

// mayTalk refuses reviews and comments on a locked pull request to those
// without write access, as GitHub refuses their issue comments.
func (a Access) mayTalk(p *model.Pull) error {
	if p.Issue.Locked && a.Perm < authz.Write {
		return model.Forbidden("Unable to create comment because issue is locked.")
	}
	return nil
}

// Pull finds a pull request of the repository (404 when there is none).
func (s *Service) Pull(ctx context.Context, a Access, number int64) (*model.Pull, error) {
	return s.st.R().PullByNumber(ctx, a.Repo.ID, number)
}

func pullEvent(p *model.Pull, action string) map[string]any {
	return map[string]any{"action": action, "pull_request_id": p.IssueID, "number": p.Number}
}

// diff is a pull request's diff at head: merge-base(base, head)..head,
// file patches by path (removed files under their old path).
type diff struct {
	head  string
	files map[string]*filePatch
}

func (s *Service) diffAt(ctx context.Context, repo *model.Repo, p *model.Pull, head string) (*diff, error) {
	g := s.git.Open(repo.ID)
	base, err := g.MergeBase(ctx, p.BaseSHA, head)
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotFound) {
			return &diff{head: head, files: map[string]*filePatch{}}, nil
		}
		return nil, err
	}
	files, err := g.Diff(ctx, base, head, gitrepo.DiffOptions{})
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotFound) {
			return &diff{head: head, files: map[string]*filePatch{}}, nil
		}
		return nil, err
	}
	d := &diff{head: head, files: make(map[string]*filePatch, len(files))}
	for _, f := range files {
		d.files[f.Path] = parsePatch(f.Patch)
	}
	return d, nil
}

// commitOf checks a commit_id given by a client: a full object id of a
// commit of the repository (GitHub's 422 otherwise); "" is the head.
func (s *Service) commitOf(ctx context.Context, repo *model.Repo, p *model.Pull, id *string) (string, error) {
	if id == nil || *id == "" || *id == p.HeadSHA {
		return p.HeadSHA, nil
	}
	sha := strings.ToLower(*id)
	if !gitrepo.ValidOID(sha) {
		return "", unprocessable("No commit found for SHA: " + *id)
	}
	if _, err := s.git.Open(repo.ID).Commit(ctx, sha); err != nil {
		if errors.Is(err, gitrepo.ErrNotFound) {
			return "", unprocessable("No commit found for SHA: " + *id)
		}
		return "", err
	}
	return sha, nil
}

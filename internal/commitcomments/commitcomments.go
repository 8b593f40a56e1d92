// Package commitcomments holds the rules of comments on commits: who may
// read, write, edit and delete them, what a comment must hold, and the
// domain events their changes append. Transports (REST today) resolve the
// repository and the caller's permission, then call the Service.
package commitcomments

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// MaxBody is GitHub's limit on a comment body, in characters (code
// points), the same as for issue comments.
const MaxBody = 65536

// ResolveFunc finds the full object id of a commit of a repository:
// model.ErrNotFound when there is none (an empty repository has none).
type ResolveFunc func(ctx context.Context, repo *model.Repo, sha string) (string, error)

// Service applies the rules; its methods run one store transaction per
// write, with a domain event.
type Service struct {
	st      *store.Store
	resolve ResolveFunc
}

// New makes the service; resolve looks commits up in git.
func New(st *store.Store, resolve ResolveFunc) *Service {
	return &Service{st: st, resolve: resolve}
}

// Access is who acts on which repository: the transport has found the
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

// mayModify: a comment's author edits and deletes it, and so does anyone
// with write access.
func (a Access) mayModify(c *model.CommitComment) error {
	if a.Perm >= authz.Write || (c.UserID != 0 && c.UserID == a.UserID) {
		return nil
	}
	return model.Forbidden("Must have write access to Repository.")
}

// checkBody refuses a missing, blank or too long body.
func checkBody(body *string) (string, error) {
	if body == nil || strings.TrimSpace(*body) == "" {
		return "", model.Invalid("CommitComment", "body", "missing_field")
	}
	if utf8.RuneCountInString(*body) > MaxBody {
		return "", &model.ValidationError{Errors: []model.FieldError{{
			Resource: "CommitComment", Field: "data", Code: "unprocessable",
			Message: "Body is too long (maximum is " + strconv.Itoa(MaxBody) + " characters)",
		}}}
	}
	return *body, nil
}

// Get is one comment of the repository.
func (s *Service) Get(ctx context.Context, a Access, id int64) (*model.CommitComment, error) {
	return s.st.R().CommitCommentByID(ctx, a.Repo.ID, id)
}

// List is a page of the repository's comments, or of one commit's when
// sha is set (a commit that does not exist has none), oldest first, with
// their count.
func (s *Service) List(ctx context.Context, a Access, sha string, limit, offset int) ([]*model.CommitComment, int, error) {
	f := store.CommitCommentQuery{RepoID: a.Repo.ID, Limit: limit, Offset: offset}
	if sha != "" {
		full, err := s.resolve(ctx, a.Repo, sha)
		if err != nil {
			if errors.Is(err, model.ErrNotFound) {
				return []*model.CommitComment{}, 0, nil
			}
			return nil, 0, err
		}
		f.CommitID = full
	}
	return s.st.R().ListCommitComments(ctx, f)
}

// NewComment is what a create request asks for.
type NewComment struct {
	Body     *string
	Path     *string
	Position *int64
	Line     *int64
}

// Create comments on commit sha: anyone who can read the repository may
// (as for issue comments); a commit that does not exist is GitHub's 422.
func (s *Service) Create(ctx context.Context, a Access, sha string, in NewComment) (*model.CommitComment, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	body, err := checkBody(in.Body)
	if err != nil {
		return nil, err
	}
	// git before the transaction: no git work inside an open one.
	full, err := s.resolve(ctx, a.Repo, sha)
	if errors.Is(err, model.ErrNotFound) {
		return nil, model.Unprocessable("No commit found for SHA: " + sha)
	}
	if err != nil {
		return nil, err
	}
	c := &model.CommitComment{RepoID: a.Repo.ID, CommitID: full, UserID: a.UserID, Body: body,
		Path: in.Path, Position: in.Position, Line: in.Line}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateCommitComment(ctx, c); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "commit_comment.created", a.UserID, a.Repo.ID, a.org(), payload(c, "created"))
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().CommitCommentByID(ctx, a.Repo.ID, c.ID)
}

func payload(c *model.CommitComment, action string) map[string]any {
	return map[string]any{"action": action, "comment_id": c.ID, "commit_id": c.CommitID}
}

// Update changes a comment's body: its author or write access.
func (s *Service) Update(ctx context.Context, a Access, id int64, body *string) (*model.CommitComment, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	err := s.st.Tx(ctx, func(tx store.Q) error {
		c, err := tx.CommitCommentByID(ctx, a.Repo.ID, id)
		if err != nil {
			return err
		}
		if err := a.mayModify(c); err != nil {
			return err
		}
		text, err := checkBody(body)
		if err != nil || text == c.Body {
			return err
		}
		from := c.Body
		c.Body = text
		if err := tx.UpdateCommitCommentBody(ctx, c); err != nil {
			return err
		}
		p := payload(c, "edited")
		p["changes"] = map[string]any{"body": map[string]any{"from": from}}
		return tx.AppendEvent(ctx, "commit_comment.edited", a.UserID, a.Repo.ID, a.org(), p)
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().CommitCommentByID(ctx, a.Repo.ID, id)
}

// Delete removes a comment and its reactions: its author or write access.
func (s *Service) Delete(ctx context.Context, a Access, id int64) error {
	if err := a.writable(); err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		c, err := tx.CommitCommentByID(ctx, a.Repo.ID, id)
		if err != nil {
			return err
		}
		if err := a.mayModify(c); err != nil {
			return err
		}
		if err := tx.DeleteCommitComment(ctx, c); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "commit_comment.deleted", a.UserID, a.Repo.ID, a.org(), payload(c, "deleted"))
	})
}

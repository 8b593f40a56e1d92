// Package blocks is the blocking service: a user blocks other users from
// their account, an organization's owners block users from the
// organization. It holds the rules — who may block whom, what a block takes
// away (collaborator access, pending organization invitations) — and the
// check other domains make before letting someone open an issue or pull
// request, comment or react in a blocker's repositories.
package blocks

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the blocking service.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Fine-grained permission names of the two families of operations.
const (
	userPermission = "blocking"                   // "Block another user" user permission
	orgPermission  = "organization_user_blocking" // "Blocking users" organization permission
)

// ErrBlocked is GitHub's refusal when a blocked user tries to act (open an
// issue or pull request, comment, react) in a repository whose owner blocks
// them. resource names what was refused ("Issue", "IssueComment",
// "PullRequest", "Reaction", ...).
func ErrBlocked(resource string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: "data", Code: "unprocessable", Message: "User is blocked"}}}
}

// Blocked reports whether userID is blocked by repo's owner (a user or an
// organization). The transports of issues, pull requests, comments and
// reactions call it before those writes and answer ErrBlocked.
func (s *Service) Blocked(ctx context.Context, repo *model.Repo, userID int64) (bool, error) {
	if userID == 0 {
		return false, nil
	}
	owner := repo.OwnerID
	if owner == 0 && repo.Owner != nil {
		owner = repo.Owner.ID
	}
	if owner == 0 || owner == userID {
		return false, nil
	}
	return s.Store.R().IsBlocked(ctx, owner, userID)
}

// Refuse is the check at a call site: ErrBlocked(resource) when userID is
// blocked by repo's owner, nil when they may go on.
func (s *Service) Refuse(ctx context.Context, repo *model.Repo, userID int64, resource string) error {
	blocked, err := s.Blocked(ctx, repo, userID)
	if err != nil {
		return err
	}
	if blocked {
		return ErrBlocked(resource)
	}
	return nil
}

// BlockedBy reports whether blockerID (a user or an organization) blocks
// userID: a user who blocked someone also keeps them off the issues and pull
// requests they opened and off reactions to their comments, in any
// repository.
func (s *Service) BlockedBy(ctx context.Context, blockerID, userID int64) (bool, error) {
	if blockerID == 0 || userID == 0 || blockerID == userID {
		return false, nil
	}
	return s.Store.R().IsBlocked(ctx, blockerID, userID)
}

// tokenAllows reports whether the caller's token may use the operation:
// classic and OAuth tokens by scope, fine-grained tokens by the permission
// at level ("read" or "write"); GitHub App tokens only when apps may.
func tokenAllows(c *authz.Caller, scope, perm, level string, apps bool) error {
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		if c.HasScope(scope) {
			return nil
		}
		return errNoScope
	case authz.UserToServer, authz.Installation:
		if !apps {
			return model.Forbidden("Resource not accessible by integration")
		}
		if got := c.Permissions[perm]; got == "write" || got == "admin" || got == level {
			return nil
		}
		return model.Forbidden("Resource not accessible by integration")
	}
	if got := c.Permissions[perm]; got == "write" || got == "admin" || got == level {
		return nil
	}
	return model.Forbidden("Resource not accessible by personal access token")
}

// errNoScope marks a classic token without the operation's scope; user
// blocks answer 403 for it, organization blocks 404 (as GitHub documents).
var errNoScope = errors.New("missing scope")

// target loads the user named login: organizations cannot be blocked, so
// they are not found, like unknown logins.
func target(ctx context.Context, q store.Q, login string) (*model.Account, error) {
	u, err := q.AccountByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if u.IsOrg() {
		return nil, model.ErrNotFound
	}
	return u, nil
}

func level(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

// userActor checks a caller acting on their own block list.
func userActor(c *authz.Caller, write bool) error {
	if c == nil || c.User == nil {
		return model.Forbidden("Resource not accessible by integration")
	}
	err := tokenAllows(c, "user", userPermission, level(write), false)
	if errors.Is(err, errNoScope) {
		return model.Forbidden("Resource not accessible by personal access token")
	}
	return err
}

// errCannotBlock is the 422 of a block GitHub refuses (yourself, a member of
// the blocking organization).
func errCannotBlock(resource, login, msg string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: "blocked_user", Code: "custom", Message: msg, Value: login}}}
}

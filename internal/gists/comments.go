package gists

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// maxBody is the longest comment body GitHub accepts.
const maxBody = 65535

func checkBody(body *string) error {
	if body == nil {
		return model.Invalid("GistComment", "body", "missing_field")
	}
	if strings.TrimSpace(*body) == "" {
		return model.Invalid("GistComment", "body", "missing_field")
	}
	if len([]rune(*body)) > maxBody {
		return model.Custom("GistComment", "body", "body is too long (maximum is 65536 characters)")
	}
	return nil
}

// Association is a comment's author_association: OWNER for the gist's
// owner, NONE otherwise.
func Association(g *model.Gist, userID int64) string {
	if g.OwnerID == userID {
		return "OWNER"
	}
	return "NONE"
}

// Comments is one page of a gist's comments, oldest first, and their total.
func (s *Service) Comments(ctx context.Context, g *model.Gist, limit, offset int) ([]*model.GistComment, int, error) {
	return s.Store.R().GistComments(ctx, g.ID, limit, offset)
}

// Comment loads comment id of gist g.
func (s *Service) Comment(ctx context.Context, g *model.Gist, id int64) (*model.GistComment, error) {
	return s.Store.R().GistComment(ctx, g.ID, id)
}

// AddComment comments on gist g as the caller.
func (s *Service) AddComment(ctx context.Context, c *authz.Caller, g *model.Gist, body *string) (*model.GistComment, error) {
	if err := writer(c); err != nil {
		return nil, err
	}
	if err := checkBody(body); err != nil {
		return nil, err
	}
	cm := &model.GistComment{GistID: g.ID, UserID: c.User.ID, User: c.User, Body: *body}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.InsertGistComment(ctx, cm); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventCommented, c.User.ID, 0, 0, map[string]any{"action": "created", "gist_id": g.Name, "comment_id": cm.ID})
	})
	return cm, err
}

// mayEdit loads comment id for a change by the caller: its author may edit
// and delete it, the gist's owner delete it.
func (s *Service) mayEdit(ctx context.Context, c *authz.Caller, g *model.Gist, id int64, deleting bool) (*model.GistComment, error) {
	if err := writer(c); err != nil {
		return nil, err
	}
	cm, err := s.Comment(ctx, g, id)
	if err != nil {
		return nil, err
	}
	if cm.UserID != c.User.ID && !(deleting && g.OwnerID == c.User.ID) {
		return nil, model.Forbidden("You do not have permission to modify this comment.")
	}
	return cm, nil
}

// EditComment replaces a comment's body.
func (s *Service) EditComment(ctx context.Context, c *authz.Caller, g *model.Gist, id int64, body *string) (*model.GistComment, error) {
	cm, err := s.mayEdit(ctx, c, g, id, false)
	if err != nil {
		return nil, err
	}
	if err := checkBody(body); err != nil {
		return nil, err
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateGistComment(ctx, cm, *body); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventCommented, c.User.ID, 0, 0, map[string]any{"action": "edited", "gist_id": g.Name, "comment_id": cm.ID})
	})
	return cm, err
}

// DeleteComment removes a comment.
func (s *Service) DeleteComment(ctx context.Context, c *authz.Caller, g *model.Gist, id int64) error {
	cm, err := s.mayEdit(ctx, c, g, id, true)
	if err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteGistComment(ctx, cm); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventCommented, c.User.ID, 0, 0, map[string]any{"action": "deleted", "gist_id": g.Name, "comment_id": cm.ID})
	})
}

// Package autolinks is the service of a repository's autolink references
// (JIRA-123 linking to a tracker): their rules, and the set Markdown
// renders with in the repository's context.
package autolinks

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service manages autolink references.
type Service struct{ Store *store.Store }

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Input is a new autolink reference.
type Input struct {
	KeyPrefix    string
	URLTemplate  string
	Alphanumeric bool
}

const resource = "KeyLink"

// validate answers GitHub's 422s for a prefix or template it refuses.
func validate(in Input) error {
	var errs []model.FieldError
	bad := func(field, msg string) {
		errs = append(errs, model.FieldError{Resource: resource, Field: field, Code: "custom", Message: msg})
	}
	p := in.KeyPrefix
	switch {
	case strings.TrimSpace(p) == "":
		errs = append(errs, model.FieldError{Resource: resource, Field: "key_prefix", Code: "missing_field"})
	default:
		if c := p[len(p)-1]; c >= '0' && c <= '9' {
			bad("key_prefix", "key_prefix must not end with a number")
		}
		for _, c := range p {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-_+=:/#", c)) {
				bad("key_prefix", "key_prefix must only contain letters, numbers, or .-_+=:/#")
				break
			}
		}
	}
	u, err := url.Parse(strings.ReplaceAll(in.URLTemplate, "<num>", "1"))
	if !strings.Contains(in.URLTemplate, "<num>") {
		bad("url_template", "url_template is missing a <num> token")
	} else if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("url_template", "url_template must be a valid http or https URL")
	}
	if len(errs) > 0 {
		return &model.ValidationError{Errors: errs}
	}
	return nil
}

// Create adds an autolink reference to repo (the caller checked admin
// permission); GitHub's 422 for an invalid or duplicate prefix.
func (s *Service) Create(ctx context.Context, repo *model.Repo, actorID int64, in Input) (*model.Autolink, error) {
	if err := validate(in); err != nil {
		return nil, err
	}
	if err := repo.WriteRefusal(); err != nil {
		return nil, err
	}
	a := &model.Autolink{RepoID: repo.ID, KeyPrefix: in.KeyPrefix, URLTemplate: in.URLTemplate, Alphanumeric: in.Alphanumeric}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if n, err := tx.AutolinkCount(ctx, repo.ID); err != nil {
			return err
		} else if n >= store.MaxAutolinks {
			return model.Custom(resource, "key_prefix", "A repository may have up to 500 autolink references")
		}
		if err := tx.CreateAutolink(ctx, a); errors.Is(err, store.ErrDuplicate) {
			return model.Invalid(resource, "key_prefix", "already_exists")
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "autolink.created", actorID, repo.ID, orgOf(repo), map[string]any{"autolink_id": a.ID, "key_prefix": a.KeyPrefix})
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Delete removes one of repo's autolink references.
func (s *Service) Delete(ctx context.Context, repo *model.Repo, actorID, id int64) error {
	if err := repo.WriteRefusal(); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		a, err := tx.AutolinkByID(ctx, repo.ID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteAutolink(ctx, repo.ID, id); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "autolink.deleted", actorID, repo.ID, orgOf(repo), map[string]any{"autolink_id": a.ID, "key_prefix": a.KeyPrefix})
	})
}

// Set is repo's autolink references as Markdown renders with them.
func (s *Service) Set(ctx context.Context, repoID int64) (markdown.AutolinkSet, error) {
	list, err := s.Store.R().Autolinks(ctx, repoID)
	if err != nil {
		return "", err
	}
	out := make([]markdown.Autolink, len(list))
	for i, a := range list {
		out[i] = markdown.Autolink{Prefix: a.KeyPrefix, Template: a.URLTemplate, Alphanumeric: a.Alphanumeric}
	}
	return markdown.EncodeAutolinks(out), nil
}

func orgOf(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

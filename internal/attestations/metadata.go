package attestations

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Artifact metadata: an organization's storage and deployment records of
// an artifact, by digest. A record belongs to the repository of the
// artifact's newest provenance attestation in the organization, or else to
// the github_repository the caller names; the caller must write to it.

// Target is the artifact a record is about.
type Target struct {
	Digest     string
	GitHubRepo string // the repository named when no attestation gives one
}

// resolved is the repository and attestation of a target.
type resolved struct{ repoID, attestationID int64 }

// resolve finds target's repository in org and checks that the caller
// writes to it: 404 when there is none or the caller cannot see it, 403
// when they see it but may not write.
func (s *Service) resolve(ctx context.Context, q store.Q, c *authz.Caller, org *model.Account, t Target) (resolved, error) {
	attID, repoID, err := q.ProvenanceOf(ctx, org.ID, t.Digest)
	if err != nil {
		return resolved{}, err
	}
	var view *store.RepoView
	if repoID == 0 {
		if t.GitHubRepo == "" {
			return resolved{}, model.ErrNotFound
		}
		view, err = q.RepoByName(ctx, org.Login, t.GitHubRepo, c.UserID())
		if err != nil {
			return resolved{}, err
		}
	} else if view, err = q.RepoByID(ctx, repoID, c.UserID()); err != nil {
		return resolved{}, err
	}
	if view.Repo.OwnerID != org.ID {
		return resolved{}, model.ErrNotFound
	}
	perm := authz.RepoPermission(c, view.Repo, view.Facts)
	if !authz.CanSee(perm) {
		return resolved{}, model.ErrNotFound
	}
	if perm < authz.Write {
		return resolved{}, authz.NeedPermission(authz.Write)
	}
	return resolved{repoID: view.Repo.ID, attestationID: attID}, nil
}

// PutStorage records where an artifact is stored.
func (s *Service) PutStorage(ctx context.Context, c *authz.Caller, org *model.Account, t Target, x *model.ArtifactStorageRecord) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		res, err := s.resolve(ctx, tx, c, org, t)
		if err != nil {
			return err
		}
		x.OrgID, x.RepoID, x.Digest = org.ID, res.repoID, t.Digest
		if x.Status == "" {
			x.Status = "active"
		}
		if err := tx.PutStorageRecord(ctx, x); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "artifact_metadata.storage_record", c.UserID(), res.repoID, org.ID, map[string]any{"id": x.ID, "digest": x.Digest})
	})
}

// DeploymentFailure is a deployment a partial update skipped.
type DeploymentFailure struct {
	Cause string // unauthorized or not_found
	Index int
}

// PutDeployments records deployments (one, or a cluster's set). With
// partial, those whose repository cannot be found or written are skipped
// and reported; otherwise the first such fails the whole request and
// nothing is written.
func (s *Service) PutDeployments(ctx context.Context, c *authz.Caller, org *model.Account, targets []Target, recs []*model.ArtifactDeploymentRecord, partial bool) ([]*model.ArtifactDeploymentRecord, []DeploymentFailure, error) {
	var done []*model.ArtifactDeploymentRecord
	var failed []DeploymentFailure
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		done, failed = nil, nil
		for i, x := range recs {
			res, err := s.resolve(ctx, tx, c, org, targets[i])
			if err != nil {
				var he *model.HTTPError
				switch {
				case !partial:
					return err
				case errors.Is(err, model.ErrNotFound):
					failed = append(failed, DeploymentFailure{Cause: "not_found", Index: i})
					continue
				case errors.As(err, &he) && he.Status == 403:
					failed = append(failed, DeploymentFailure{Cause: "unauthorized", Index: i})
					continue
				}
				return err
			}
			x.OrgID, x.RepoID, x.AttestationID, x.Digest = org.ID, res.repoID, res.attestationID, targets[i].Digest
			if err := tx.PutDeploymentRecord(ctx, x); err != nil {
				return err
			}
			done = append(done, x)
		}
		ids := make([]int64, len(done))
		for i, x := range done {
			ids[i] = x.ID
		}
		if len(ids) == 0 {
			return nil
		}
		return tx.AppendEvent(ctx, "artifact_metadata.deployment_records", c.UserID(), 0, org.ID, map[string]any{"ids": ids})
	})
	return done, failed, err
}

// StorageRecords are the storage records of digest the caller may see.
func (s *Service) StorageRecords(ctx context.Context, org *model.Account, digest string, v *store.Viewer, reach []int64) ([]*model.ArtifactStorageRecord, error) {
	return s.Store.R().StorageRecords(ctx, org.ID, digest, v, reach)
}

// DeploymentRecords are the deployment records of digest the caller may
// see.
func (s *Service) DeploymentRecords(ctx context.Context, org *model.Account, digest string, v *store.Viewer, reach []int64) ([]*model.ArtifactDeploymentRecord, error) {
	return s.Store.R().DeploymentRecords(ctx, org.ID, digest, v, reach)
}

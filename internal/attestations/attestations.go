// Package attestations is the service of artifact attestations and
// artifact metadata: Sigstore bundles stored per repository (validated and
// their DSSE signature checked with sigstore-go's bundle model on upload),
// found by subject digest through the repository, its owner (organization
// or user) and in bulk; deleted by id, digest or in bulk by owners who may
// write to the repositories; and the storage and deployment records an
// organization keeps per artifact digest (metadata.go).
package attestations

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

const resource = "Attestation"

// maxBundle bounds a stored bundle (GitHub's attest action makes a few
// kilobytes; an SBOM predicate can run to megabytes).
const maxBundle = 16 << 20

// Service stores attestations and artifact metadata.
type Service struct{ Store *store.Store }

// New makes the service.
func New(st *store.Store) *Service { return &Service{Store: st} }

var digestRE = regexp.MustCompile(`^[a-z0-9]+:[a-f0-9]+$`)

// ValidDigest reports whether s reads as alg:hex.
func ValidDigest(s string) bool { return len(s) <= 200 && digestRE.MatchString(s) }

// Create stores an attestation of repo from the caller, who writes to it.
func (s *Service) Create(ctx context.Context, c *authz.Caller, repo *model.Repo, raw json.RawMessage) (*model.Attestation, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, model.Invalid(resource, "bundle", "missing_field")
	}
	if len(raw) > maxBundle {
		return nil, invalid("The bundle is too large")
	}
	p, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	initiator := "user"
	if c.Kind == authz.Installation {
		initiator = "github_app"
	}
	a := &model.Attestation{RepoID: repo.ID, PredicateType: p.PredicateType, PredicateKind: kindOf(p.PredicateType),
		Bundle: string(raw), Initiator: initiator, CreatorID: c.UserID(), Verified: p.Verified, Digests: p.Digests}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAttestation(ctx, a); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "attestation.created", c.UserID(), repo.ID, orgOf(repo),
			map[string]any{"attestation_id": a.ID, "predicate_type": a.PredicateType, "subject_digests": a.Digests})
	})
	return a, err
}

func orgOf(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// List is a page of attestations (newest first) and whether more follow.
func (s *Service) List(ctx context.Context, f store.AttestationQuery) ([]*model.Attestation, bool, error) {
	return s.Store.R().Attestations(ctx, f)
}

// Repos is a page of the owner's repositories with attestations.
func (s *Service) Repos(ctx context.Context, f store.AttestationQuery) ([]store.AttestedRepo, bool, error) {
	return s.Store.R().AttestedRepos(ctx, f)
}

// Delete deletes the attestations of owner's repositories with one of
// digests as subject or one of ids. found is false when none matched
// (404); a caller who sees a matching repository but may not write to it
// gets 403 and nothing is deleted.
func (s *Service) Delete(ctx context.Context, c *authz.Caller, owner *model.Account, digests []string, ids []int64) (found bool, err error) {
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		refs, err := tx.AttestationRefs(ctx, owner.ID, digests, ids)
		if err != nil || len(refs) == 0 {
			return err
		}
		repoIDs := make([]int64, 0, len(refs))
		for _, r := range refs {
			repoIDs = append(repoIDs, r)
		}
		views, err := tx.ReposByID(ctx, repoIDs, c.UserID())
		if err != nil {
			return err
		}
		del := make([]int64, 0, len(refs))
		for id, repoID := range refs {
			v := views[repoID]
			if v == nil {
				continue
			}
			perm := authz.RepoPermission(c, v.Repo, v.Facts)
			if !authz.CanSee(perm) {
				continue // hidden: as if it were not there
			}
			if perm < authz.Write {
				return authz.NeedPermission(authz.Write)
			}
			del = append(del, id)
		}
		if len(del) == 0 {
			return nil
		}
		found = true
		if err := tx.DeleteAttestations(ctx, del); err != nil {
			return err
		}
		orgID := int64(0)
		if owner.IsOrg() {
			orgID = owner.ID
		}
		return tx.AppendEvent(ctx, "attestation.deleted", c.UserID(), 0, orgID, map[string]any{"attestation_ids": del})
	})
	return found, err
}

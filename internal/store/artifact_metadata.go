package store

import (
	"context"
	"encoding/json"

	"github.com/hubd/hubd/internal/model"
)

// ProvenanceOf is the newest provenance attestation of ownerID's
// repositories with digest as a subject: its id and repository (0, 0 when
// none).
func (q Q) ProvenanceOf(ctx context.Context, ownerID int64, digest string) (id, repoID int64, err error) {
	err = q.row(ctx, `SELECT t.id, t.repo_id FROM attestations t JOIN repos r ON r.id = t.repo_id
 JOIN attestation_subjects x ON x.attestation_id = t.id
 WHERE r.owner_id = ? AND x.digest = ? AND t.predicate_kind = 'provenance' ORDER BY t.id DESC LIMIT 1`, ownerID, digest).Scan(&id, &repoID)
	if notFound(err) == model.ErrNotFound {
		return 0, 0, nil
	}
	return id, repoID, err
}

const storageCols = `s.id, s.org_id, COALESCE(s.repo_id, 0), s.name, s.digest, s.version, s.artifact_url, s.path, s.registry_url, s.repository, s.status, s.created_at, s.updated_at`

func scanStorage(sc scanner) (*model.ArtifactStorageRecord, error) {
	x := &model.ArtifactStorageRecord{}
	var c, u int64
	if err := sc.Scan(&x.ID, &x.OrgID, &x.RepoID, &x.Name, &x.Digest, &x.Version, &x.ArtifactURL, &x.Path, &x.RegistryURL, &x.Repository, &x.Status, &c, &u); err != nil {
		return nil, err
	}
	x.CreatedAt, x.UpdatedAt = fromUnix(c), fromUnix(u)
	return x, nil
}

// PutStorageRecord creates the storage record of an artifact in a
// registry, or updates the one with the same digest, registry, name and
// version.
func (q Q) PutStorageRecord(ctx context.Context, x *model.ArtifactStorageRecord) error {
	now := unix(q.Now())
	_, err := q.exec(ctx, `INSERT INTO artifact_storage_records (org_id, repo_id, name, digest, version, artifact_url, path, registry_url, repository, status, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
 ON CONFLICT (org_id, digest, registry_url, name, version) DO UPDATE SET repo_id = excluded.repo_id, artifact_url = excluded.artifact_url,
 path = excluded.path, repository = excluded.repository, status = excluded.status, updated_at = excluded.updated_at`,
		x.OrgID, nullID(x.RepoID), x.Name, x.Digest, x.Version, x.ArtifactURL, x.Path, x.RegistryURL, x.Repository, x.Status, now, now)
	if err != nil {
		return err
	}
	got, err := scanStorage(q.row(ctx, `SELECT `+storageCols+` FROM artifact_storage_records s
 WHERE s.org_id = ? AND s.digest = ? AND s.registry_url = ? AND s.name = ? AND s.version = ?`, x.OrgID, x.Digest, x.RegistryURL, x.Name, x.Version))
	if err != nil {
		return err
	}
	*x = *got
	return nil
}

// metadataLimit bounds the records a per-digest list answers (GitHub's
// lists of them take no paging parameters).
const metadataLimit = 1000

// StorageRecords are the storage records of digest in org's repositories
// that v may see (see reachWhere), newest first.
func (q Q) StorageRecords(ctx context.Context, orgID int64, digest string, v *Viewer, reach []int64) ([]*model.ArtifactStorageRecord, error) {
	s := reachWhere(v, reach)
	s.w("s.org_id = ? AND s.digest = ? ORDER BY s.id DESC LIMIT ?")
	s.arg(orgID, digest, metadataLimit)
	rows, err := q.query(ctx, `SELECT `+storageCols+` FROM artifact_storage_records s JOIN repos r ON r.id = s.repo_id
 JOIN accounts a ON a.id = r.owner_id`+viewerJoins+s.b.String(), s.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.ArtifactStorageRecord{}
	for rows.Next() {
		x, err := scanStorage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

const deploymentCols = `d.id, d.org_id, COALESCE(d.repo_id, 0), COALESCE(d.attestation_id, 0), d.name, d.digest, d.version, d.status,
 d.logical_environment, d.physical_environment, d.cluster, d.deployment_name, d.tags, d.runtime_risks, d.created_at, d.updated_at`

func scanDeploymentRecord(sc scanner) (*model.ArtifactDeploymentRecord, error) {
	x := &model.ArtifactDeploymentRecord{}
	var tags, risks string
	var c, u int64
	if err := sc.Scan(&x.ID, &x.OrgID, &x.RepoID, &x.AttestationID, &x.Name, &x.Digest, &x.Version, &x.Status,
		&x.LogicalEnv, &x.PhysicalEnv, &x.Cluster, &x.DeploymentName, &tags, &risks, &c, &u); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(tags), &x.Tags); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(risks), &x.RuntimeRisks); err != nil {
		return nil, err
	}
	x.CreatedAt, x.UpdatedAt = fromUnix(c), fromUnix(u)
	return x, nil
}

// PutDeploymentRecord creates a deployment record, or updates the one of
// the same environments, cluster and deployment name.
func (q Q) PutDeploymentRecord(ctx context.Context, x *model.ArtifactDeploymentRecord) error {
	if x.Tags == nil {
		x.Tags = map[string]string{}
	}
	if x.RuntimeRisks == nil {
		x.RuntimeRisks = []string{}
	}
	tags, err := json.Marshal(x.Tags)
	if err != nil {
		return err
	}
	risks, err := json.Marshal(x.RuntimeRisks)
	if err != nil {
		return err
	}
	now := unix(q.Now())
	_, err = q.exec(ctx, `INSERT INTO artifact_deployment_records (org_id, repo_id, attestation_id, name, digest, version, status,
 logical_environment, physical_environment, cluster, deployment_name, tags, runtime_risks, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
 ON CONFLICT (org_id, logical_environment, physical_environment, cluster, deployment_name) DO UPDATE SET repo_id = excluded.repo_id,
 attestation_id = excluded.attestation_id, name = excluded.name, digest = excluded.digest, version = excluded.version, status = excluded.status,
 tags = excluded.tags, runtime_risks = excluded.runtime_risks, updated_at = excluded.updated_at`,
		x.OrgID, nullID(x.RepoID), nullID(x.AttestationID), x.Name, x.Digest, x.Version, x.Status, x.LogicalEnv, x.PhysicalEnv, x.Cluster,
		x.DeploymentName, string(tags), string(risks), now, now)
	if err != nil {
		return err
	}
	got, err := scanDeploymentRecord(q.row(ctx, `SELECT `+deploymentCols+` FROM artifact_deployment_records d WHERE d.org_id = ?
 AND d.logical_environment = ? AND d.physical_environment = ? AND d.cluster = ? AND d.deployment_name = ?`,
		x.OrgID, x.LogicalEnv, x.PhysicalEnv, x.Cluster, x.DeploymentName))
	if err != nil {
		return err
	}
	*x = *got
	return nil
}

// DeploymentRecords are the deployment records of digest in org's
// repositories that v may see (see reachWhere), newest first.
func (q Q) DeploymentRecords(ctx context.Context, orgID int64, digest string, v *Viewer, reach []int64) ([]*model.ArtifactDeploymentRecord, error) {
	s := reachWhere(v, reach)
	s.w("d.org_id = ? AND d.digest = ? ORDER BY d.id DESC LIMIT ?")
	s.arg(orgID, digest, metadataLimit)
	rows, err := q.query(ctx, `SELECT `+deploymentCols+` FROM artifact_deployment_records d JOIN repos r ON r.id = d.repo_id
 JOIN accounts a ON a.id = r.owner_id`+viewerJoins+s.b.String(), s.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.ArtifactDeploymentRecord{}
	for rows.Next() {
		x, err := scanDeploymentRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

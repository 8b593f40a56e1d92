package attestations

import (
	"errors"
	"net/http"
	"time"

	svc "github.com/hubd/hubd/internal/attestations"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

const metadataNote = "A record belongs to the repository of the digest's newest provenance attestation in the organization, else to github_repository; the caller must write to it. hubd keeps the records (no registry or cluster is contacted)."

func (a *API) metadataRoutes() []rest.Route {
	base := "/orgs/{org}/artifacts"
	write := []string{"repo"}
	read := []string{"repo", "public_repo"}
	org := a.owner("org")
	return []rest.Route{
		{Method: "POST", Pattern: base + "/metadata/storage-record", OperationID: "orgs/create-artifact-storage-record", Handler: org(a.storageRecord), Scopes: write, Note: metadataNote},
		{Method: "POST", Pattern: base + "/metadata/deployment-record", OperationID: "orgs/create-artifact-deployment-record", Handler: org(a.deploymentRecord), Scopes: write, Note: metadataNote},
		{Method: "POST", Pattern: base + "/metadata/deployment-record/cluster/{cluster}", OperationID: "orgs/set-cluster-deployment-records", Handler: org(a.clusterRecords), Scopes: write, Note: metadataNote},
		{Method: "GET", Pattern: base + "/{subject_digest}/metadata/storage-records", OperationID: "orgs/list-artifact-storage-records", Handler: org(a.listStorage), Scopes: read},
		{Method: "GET", Pattern: base + "/{subject_digest}/metadata/deployment-records", OperationID: "orgs/list-artifact-deployment-records", Handler: org(a.listDeployments), Scopes: read},
	}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// storageJSON is a storage record; the create answer sends absent URLs
// and repositories as null, the list (whose schema has no null) omits them.
func storageJSON(x *model.ArtifactStorageRecord, nulls bool) map[string]any {
	m := map[string]any{"id": x.ID, "name": x.Name, "digest": x.Digest, "registry_url": x.RegistryURL,
		"status": x.Status, "created_at": stamp(x.CreatedAt), "updated_at": stamp(x.UpdatedAt)}
	for k, v := range map[string]*string{"artifact_url": x.ArtifactURL, "repository": x.Repository} {
		if v != nil {
			m[k] = *v
		} else if nulls {
			m[k] = nil
		}
	}
	return m
}

func deploymentJSON(x *model.ArtifactDeploymentRecord) map[string]any {
	var att any
	if x.AttestationID != 0 {
		att = x.AttestationID
	}
	return map[string]any{"id": x.ID, "digest": x.Digest, "logical_environment": x.LogicalEnv, "physical_environment": x.PhysicalEnv,
		"cluster": x.Cluster, "deployment_name": x.DeploymentName, "tags": x.Tags, "runtime_risks": x.RuntimeRisks,
		"created_at": stamp(x.CreatedAt), "updated_at": stamp(x.UpdatedAt), "attestation_id": att}
}

// requireCaller is the check before the body is read: an installation on
// the organization, or a member whose token may write to repositories (the
// repository of each record is checked after).
func (a *API) requireCaller(r *http.Request, org *model.Account) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth
	}
	if done, err := c.OrgToken(org.ID, "repo"); done {
		return err
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.UserID())
	if errors.Is(err, model.ErrNotFound) || err == nil && m.State != "active" {
		return model.Forbidden("You must be a member of the organization to record artifact metadata.")
	}
	return err
}

// POST /orgs/{org}/artifacts/metadata/storage-record
func (a *API) storageRecord(w http.ResponseWriter, r *http.Request, org *model.Account) error {
	if err := a.requireCaller(r, org); err != nil {
		return err
	}
	// The schema (checked before this) holds the required fields, the
	// digest's pattern, the https URLs and the status enum.
	var body struct {
		Name             string  `json:"name"`
		Digest           string  `json:"digest"`
		Version          string  `json:"version"`
		RegistryURL      string  `json:"registry_url"`
		Status           string  `json:"status"`
		ArtifactURL      *string `json:"artifact_url"`
		Path             *string `json:"path"`
		Repository       *string `json:"repository"`
		GitHubRepository string  `json:"github_repository"`
		ReturnRecords    *bool   `json:"return_records"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	x := &model.ArtifactStorageRecord{Name: body.Name, Version: body.Version, RegistryURL: body.RegistryURL, Status: body.Status,
		ArtifactURL: body.ArtifactURL, Path: body.Path, Repository: body.Repository}
	if err := a.svc.PutStorage(r.Context(), rest.Caller(r), org, svc.Target{Digest: body.Digest, GitHubRepo: body.GitHubRepository}, x); err != nil {
		return err
	}
	out := map[string]any{"total_count": 1}
	if body.ReturnRecords == nil || *body.ReturnRecords {
		out["storage_records"] = []any{storageJSON(x, true)}
	}
	return rest.JSON(w, http.StatusOK, out)
}

// deploymentBody is one deployment of a request.
type deploymentBody struct {
	Name             string            `json:"name"`
	Digest           string            `json:"digest"`
	Version          string            `json:"version"`
	Status           string            `json:"status"`
	DeploymentName   string            `json:"deployment_name"`
	GitHubRepository string            `json:"github_repository"`
	Tags             map[string]string `json:"tags"`
	RuntimeRisks     []string          `json:"runtime_risks"`
}

func (d deploymentBody) record(logical, physical, cluster string) *model.ArtifactDeploymentRecord {
	status := d.Status
	if status == "" {
		status = "deployed"
	}
	return &model.ArtifactDeploymentRecord{Name: d.Name, Version: d.Version, Status: status, LogicalEnv: logical, PhysicalEnv: physical,
		Cluster: cluster, DeploymentName: d.DeploymentName, Tags: d.Tags, RuntimeRisks: d.RuntimeRisks}
}

func deploymentsOut(list []*model.ArtifactDeploymentRecord, show bool) map[string]any {
	out := map[string]any{"total_count": len(list)}
	if show {
		recs := make([]any, len(list))
		for i, x := range list {
			recs[i] = deploymentJSON(x)
		}
		out["deployment_records"] = recs
	}
	return out
}

// POST /orgs/{org}/artifacts/metadata/deployment-record
func (a *API) deploymentRecord(w http.ResponseWriter, r *http.Request, org *model.Account) error {
	if err := a.requireCaller(r, org); err != nil {
		return err
	}
	var body struct {
		deploymentBody
		Logical       string `json:"logical_environment"`
		Physical      string `json:"physical_environment"`
		Cluster       string `json:"cluster"`
		ReturnRecords *bool  `json:"return_records"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	rec := body.record(body.Logical, body.Physical, body.Cluster)
	done, _, err := a.svc.PutDeployments(r.Context(), rest.Caller(r), org,
		[]svc.Target{{Digest: body.Digest, GitHubRepo: body.GitHubRepository}}, []*model.ArtifactDeploymentRecord{rec}, false)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, deploymentsOut(done, body.ReturnRecords == nil || *body.ReturnRecords))
}

// POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}
func (a *API) clusterRecords(w http.ResponseWriter, r *http.Request, org *model.Account) error {
	if err := a.requireCaller(r, org); err != nil {
		return err
	}
	var body struct {
		Logical       string           `json:"logical_environment"`
		Physical      string           `json:"physical_environment"`
		Deployments   []deploymentBody `json:"deployments"`
		Partial       bool             `json:"partial_success"`
		ReturnRecords *bool            `json:"return_records"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	cluster := r.PathValue("cluster")
	seen := map[string]bool{}
	targets := make([]svc.Target, len(body.Deployments))
	recs := make([]*model.ArtifactDeploymentRecord, len(body.Deployments))
	for i, d := range body.Deployments {
		if seen[d.DeploymentName] {
			return model.Custom("DeploymentRecord", "deployments", "deployment_name must be unique across all entries: "+d.DeploymentName)
		}
		seen[d.DeploymentName] = true
		targets[i] = svc.Target{Digest: d.Digest, GitHubRepo: d.GitHubRepository}
		recs[i] = d.record(body.Logical, body.Physical, cluster)
	}
	done, failed, err := a.svc.PutDeployments(r.Context(), rest.Caller(r), org, targets, recs, body.Partial)
	if err != nil {
		return err
	}
	out := deploymentsOut(done, body.ReturnRecords == nil || *body.ReturnRecords)
	if len(failed) == 0 {
		return rest.JSON(w, http.StatusOK, out)
	}
	errs := make([]any, len(failed))
	for i, f := range failed {
		d := body.Deployments[f.Index]
		var version, repo any
		if d.Version != "" {
			version = d.Version
		}
		if d.GitHubRepository != "" {
			repo = d.GitHubRepository
		}
		dep := map[string]any{"name": d.Name, "digest": d.Digest, "deployment_name": d.DeploymentName, "version": version,
			"status": recs[f.Index].Status, "github_repository": repo}
		if d.Tags != nil {
			dep["tags"] = d.Tags
		}
		if d.RuntimeRisks != nil {
			dep["runtime_risks"] = d.RuntimeRisks
		}
		errs[i] = map[string]any{"cause": f.Cause, "deployment": dep}
	}
	out["errors"] = errs
	return rest.JSON(w, http.StatusMultiStatus, out)
}

func metadataDigest(r *http.Request) (string, error) {
	d := r.PathValue("subject_digest")
	if !svc.ValidDigest(d) {
		return "", model.ErrNotFound
	}
	return d, nil
}

// GET /orgs/{org}/artifacts/{subject_digest}/metadata/storage-records
func (a *API) listStorage(w http.ResponseWriter, r *http.Request, org *model.Account) error {
	d, err := metadataDigest(r)
	if err != nil {
		return err
	}
	var f store.AttestationQuery
	viewer(r, org, &f)
	list, err := a.svc.StorageRecords(r.Context(), org, d, f.Viewer, f.Reach)
	if err != nil {
		return err
	}
	recs := make([]any, len(list))
	for i, x := range list {
		recs[i] = storageJSON(x, false)
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"total_count": len(list), "storage_records": recs})
}

// GET /orgs/{org}/artifacts/{subject_digest}/metadata/deployment-records
func (a *API) listDeployments(w http.ResponseWriter, r *http.Request, org *model.Account) error {
	d, err := metadataDigest(r)
	if err != nil {
		return err
	}
	var f store.AttestationQuery
	viewer(r, org, &f)
	list, err := a.svc.DeploymentRecords(r.Context(), org, d, f.Viewer, f.Reach)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, deploymentsOut(list, true))
}

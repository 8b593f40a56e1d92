package attestations_test

import (
	"encoding/json"
	"testing"
)

type deploymentList struct {
	TotalCount int `json:"total_count"`
	Records    []struct {
		ID             int64             `json:"id"`
		Digest         string            `json:"digest"`
		Cluster        string            `json:"cluster"`
		DeploymentName string            `json:"deployment_name"`
		Tags           map[string]string `json:"tags"`
		AttestationID  *int64            `json:"attestation_id"`
	} `json:"deployment_records"`
	Errors []struct {
		Cause      string `json:"cause"`
		Deployment struct {
			DeploymentName string `json:"deployment_name"`
		} `json:"deployment"`
	} `json:"errors"`
}

// Storage and deployment records: attached to the repository of the
// digest's provenance attestation (or the one named), written by its
// writers, updated in place by their keys, listed by digest to those who
// read the repository.
func TestArtifactMetadata(t *testing.T) {
	w := newWorld(t)
	e := w.e
	d1, d2, d3 := digest("image-1"), digest("image-2"), digest("image-3")
	att := w.attest(t, "octo/secret", w.olgaT, provenance, d1)

	storage := map[string]any{"name": "libfoo", "digest": d1, "version": "1.2.3", "registry_url": "https://reg.example.com/", "artifact_url": "https://reg.example.com/libfoo-1.2.3"}
	var st struct {
		TotalCount int `json:"total_count"`
		Records    []struct {
			ID         int64   `json:"id"`
			Status     string  `json:"status"`
			Repository *string `json:"repository"`
		} `json:"storage_records"`
	}
	e.Must(200, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.olgaT, storage).JSON(t, &st)
	if st.TotalCount != 1 || len(st.Records) != 1 || st.Records[0].Status != "active" || st.Records[0].Repository != nil {
		t.Fatalf("storage record %+v", st)
	}
	first := st.Records[0].ID
	storage["status"], storage["return_records"] = "eol", false
	var again map[string]any
	e.Must(200, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.olgaT, storage).JSON(t, &again)
	if _, ok := again["storage_records"]; ok || again["total_count"].(float64) != 1 {
		t.Fatalf("return_records false: %v", again)
	}
	e.Must(200, "GET", "/orgs/octo/artifacts/"+d1+"/metadata/storage-records", w.olgaT, nil).JSON(t, &st)
	if st.TotalCount != 1 || st.Records[0].ID != first || st.Records[0].Status != "eol" {
		t.Fatalf("updated in place: %+v", st)
	}
	// The private repository's record is hidden from others.
	e.Must(200, "GET", "/orgs/octo/artifacts/"+d1+"/metadata/storage-records", w.zedT, nil).JSON(t, &st)
	if st.TotalCount != 0 {
		t.Fatalf("zed sees %+v", st)
	}
	e.Must(403, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.zedT, storage) // not a member
	e.Must(401, "POST", "/orgs/octo/artifacts/metadata/storage-record", "", storage)
	// No attestation and no repository named: nothing to attach it to.
	e.Must(404, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.olgaT, map[string]any{"name": "x", "digest": d2, "registry_url": "https://reg.example.com/"})
	e.Must(200, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.olgaT, map[string]any{"name": "x", "digest": d2, "registry_url": "https://reg.example.com/", "github_repository": "app"})
	e.Must(403, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.samT, map[string]any{"name": "x", "digest": d2, "registry_url": "https://reg.example.com/", "github_repository": "app"})
	e.Must(422, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.olgaT, map[string]any{"name": "x", "digest": "sha256:nothex", "registry_url": "https://reg.example.com/"})
	e.Must(422, "POST", "/orgs/octo/artifacts/metadata/storage-record", w.olgaT, map[string]any{"name": "x", "digest": d2, "registry_url": "http://insecure/", "github_repository": "app"})

	// A deployment record links the provenance attestation.
	dep := map[string]any{"name": "web", "digest": d1, "status": "deployed", "logical_environment": "prod", "physical_environment": "eu-1",
		"cluster": "c1", "deployment_name": "ns-web-app", "tags": map[string]string{"team": "core"}, "runtime_risks": []string{"internet-exposed"}}
	var dl deploymentList
	e.Must(200, "POST", "/orgs/octo/artifacts/metadata/deployment-record", w.olgaT, dep).JSON(t, &dl)
	if dl.TotalCount != 1 || dl.Records[0].AttestationID == nil || *dl.Records[0].AttestationID != att || dl.Records[0].Tags["team"] != "core" {
		t.Fatalf("deployment %+v", dl)
	}
	// The same deployment now runs another image: the record follows it.
	dep["digest"], dep["github_repository"] = d2, "app"
	e.Must(200, "POST", "/orgs/octo/artifacts/metadata/deployment-record", w.olgaT, dep)
	e.Must(200, "GET", "/orgs/octo/artifacts/"+d1+"/metadata/deployment-records", w.olgaT, nil).JSON(t, &dl)
	if dl.TotalCount != 0 {
		t.Fatalf("old digest keeps %+v", dl)
	}
	e.Must(200, "GET", "/orgs/octo/artifacts/"+d2+"/metadata/deployment-records", w.zedT, nil).JSON(t, &dl)
	if dl.TotalCount != 1 || dl.Records[0].AttestationID != nil || dl.Records[0].DeploymentName != "ns-web-app" {
		t.Fatalf("new digest %+v", dl)
	}

	// A cluster's set: all or nothing, or partial with the failures told.
	cluster := map[string]any{"logical_environment": "prod", "deployments": []any{
		map[string]any{"name": "web", "digest": d1, "deployment_name": "web"},
		map[string]any{"name": "api", "digest": d3, "deployment_name": "api"},
	}}
	e.Must(404, "POST", "/orgs/octo/artifacts/metadata/deployment-record/cluster/k8s-1", w.olgaT, cluster)
	e.Must(200, "GET", "/orgs/octo/artifacts/"+d1+"/metadata/deployment-records", w.olgaT, nil).JSON(t, &dl)
	if dl.TotalCount != 0 {
		t.Fatalf("a refused set wrote %+v", dl)
	}
	cluster["partial_success"] = true
	r := e.Must(207, "POST", "/orgs/octo/artifacts/metadata/deployment-record/cluster/k8s-1", w.olgaT, cluster)
	r.JSON(t, &dl)
	if dl.TotalCount != 1 || dl.Records[0].Cluster != "k8s-1" || len(dl.Errors) != 1 || dl.Errors[0].Cause != "not_found" || dl.Errors[0].Deployment.DeploymentName != "api" {
		t.Fatalf("partial %s", r.Body)
	}
	cluster["deployments"] = []any{map[string]any{"name": "api", "digest": d3, "deployment_name": "api", "github_repository": "app", "status": "decommissioned"}}
	e.Must(200, "POST", "/orgs/octo/artifacts/metadata/deployment-record/cluster/k8s-1", w.olgaT, cluster).JSON(t, &dl)
	if dl.TotalCount != 1 {
		t.Fatalf("cluster %+v", dl)
	}
	cluster["deployments"] = []any{map[string]any{"name": "api", "digest": d3, "deployment_name": "api", "github_repository": "app"}}
	r = e.Must(207, "POST", "/orgs/octo/artifacts/metadata/deployment-record/cluster/k8s-1", w.samT, cluster)
	r.JSON(t, &dl)
	if len(dl.Errors) != 1 || dl.Errors[0].Cause != "unauthorized" {
		t.Fatalf("reader %s", r.Body)
	}
	dup := map[string]any{"logical_environment": "prod", "deployments": []any{
		map[string]any{"name": "a", "digest": d3, "deployment_name": "same", "github_repository": "app"},
		map[string]any{"name": "b", "digest": d3, "deployment_name": "same", "github_repository": "app"},
	}}
	e.Must(422, "POST", "/orgs/octo/artifacts/metadata/deployment-record/cluster/k8s-1", w.olgaT, dup)
	var raw map[string]json.RawMessage
	e.Must(200, "GET", "/orgs/octo/artifacts/"+d3+"/metadata/deployment-records", "", nil).JSON(t, &raw)
	e.Must(404, "GET", "/orgs/nope/artifacts/"+d3+"/metadata/deployment-records", "", nil)
}

package model

import "time"

// Attestation is a Sigstore bundle stored for a repository: the in-toto
// statement's subject digests ("sha256:hex") and predicate type come from
// its DSSE envelope.
type Attestation struct {
	ID            int64
	RepoID        int64
	PredicateType string
	// PredicateKind is the short name GitHub filters by (provenance, sbom,
	// release) when the predicate type is one of theirs, else "".
	PredicateKind string
	Bundle        string // the bundle's JSON as uploaded
	Initiator     string // user or github_app
	CreatorID     int64
	// Verified: the envelope's signature was checked with the bundle's
	// certificate (a bundle naming only a key hint cannot be checked).
	Verified  bool
	Digests   []string
	CreatedAt time.Time
}

// ArtifactStorageRecord is where an organization's artifact is stored.
type ArtifactStorageRecord struct {
	ID, OrgID, RepoID             int64
	Name, Digest, Version         string
	ArtifactURL, Path, Repository *string
	RegistryURL, Status           string
	CreatedAt, UpdatedAt          time.Time
}

// ArtifactDeploymentRecord is one deployment of an organization's
// artifact, unique by environments, cluster and deployment name.
type ArtifactDeploymentRecord struct {
	ID, OrgID, RepoID, AttestationID int64
	Name, Digest, Version, Status    string
	LogicalEnv, PhysicalEnv, Cluster string
	DeploymentName                   string
	Tags                             map[string]string
	RuntimeRisks                     []string
	CreatedAt, UpdatedAt             time.Time
}

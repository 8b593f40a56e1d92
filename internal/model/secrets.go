package model

import "time"

// SecretScope names where a secret lives: the feature it serves (App:
// "actions", "agents", later "dependabot" and "codespaces"), the level
// (Kind: repository, organization, environment or user) and the repository,
// organization or user id; environment secrets also carry the environment's name.
type SecretScope struct {
	App     string
	Kind    string
	OwnerID int64
	Env     string
}

// Secret scope kinds.
const (
	SecretRepository   = "repository"
	SecretOrganization = "organization"
	SecretEnvironment  = "environment"
	// SecretUser is a user's own secret (Codespaces user secrets): OwnerID
	// is the user's id, Visibility "selected" and its repositories the
	// ones selected for it.
	SecretUser = "user"
)

// Secret is a stored secret; Value is the ciphertext under the server key
// (internal/secrets), never the plain value.
type Secret struct {
	ID         int64
	Scope      SecretScope
	Name       string // upper-case
	Value      string
	Visibility string // organization secrets: all, private or selected
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

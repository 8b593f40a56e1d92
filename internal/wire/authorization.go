package wire

// Authorization is GitHub's authorization object: a token an OAuth app or
// a GitHub App holds for a user (the token itself only when just issued).
type Authorization struct {
	ID             int64            `json:"id"`
	URL            string           `json:"url"`
	Scopes         []string         `json:"scopes"`
	Token          string           `json:"token"`
	TokenLastEight *string          `json:"token_last_eight"`
	HashedToken    *string          `json:"hashed_token"`
	App            AuthorizationApp `json:"app"`
	Note           *string          `json:"note"`
	NoteURL        *string          `json:"note_url"`
	UpdatedAt      string           `json:"updated_at"`
	CreatedAt      string           `json:"created_at"`
	Fingerprint    *string          `json:"fingerprint"`
	User           *SimpleUser      `json:"user"`
	Installation   *struct{}        `json:"installation"`
	ExpiresAt      *string          `json:"expires_at"`
}

// AuthorizationApp is the app of an authorization.
type AuthorizationApp struct {
	ClientID string `json:"client_id"`
	Name     string `json:"name"`
	URL      string `json:"url"`
}

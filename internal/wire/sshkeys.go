package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Key is GitHub's "key": one of the authenticated user's SSH keys.
type Key struct {
	Key       string  `json:"key"`
	ID        int64   `json:"id"`
	URL       string  `json:"url"`
	Title     string  `json:"title"`
	CreatedAt string  `json:"created_at"`
	Verified  bool    `json:"verified"`
	ReadOnly  bool    `json:"read_only"`
	LastUsed  *string `json:"last_used"`
}

// KeySimple is GitHub's "key-simple": a user's key as anyone sees it.
type KeySimple struct {
	ID        int64   `json:"id"`
	Key       string  `json:"key"`
	CreatedAt string  `json:"created_at"`
	LastUsed  *string `json:"last_used"`
}

// DeployKey is GitHub's "deploy-key".
type DeployKey struct {
	ID        int64   `json:"id"`
	Key       string  `json:"key"`
	URL       string  `json:"url"`
	Title     string  `json:"title"`
	Verified  bool    `json:"verified"`
	CreatedAt string  `json:"created_at"`
	ReadOnly  bool    `json:"read_only"`
	AddedBy   *string `json:"added_by"`
	LastUsed  *string `json:"last_used"`
	Enabled   bool    `json:"enabled"`
}

// PublicKeyFull is GitHub Enterprise Server's "public-key-full": any key,
// as a site administrator lists them.
type PublicKeyFull struct {
	ID           int64   `json:"id"`
	Key          string  `json:"key"`
	UserID       *int64  `json:"user_id"`
	RepositoryID *int64  `json:"repository_id"`
	URL          string  `json:"url"`
	Title        string  `json:"title"`
	ReadOnly     bool    `json:"read_only"`
	Verified     bool    `json:"verified"`
	CreatedAt    string  `json:"created_at"`
	AddedBy      *string `json:"added_by"`
	LastUsed     *string `json:"last_used"`
	Enabled      bool    `json:"enabled"`
}

// UserKeyURL is the API URL of one of the authenticated user's keys.
func (u URLs) UserKeyURL(id int64) string { return u.API + "/user/keys/" + strconv.FormatInt(id, 10) }

// ToKey converts a user's key.
func (u URLs) ToKey(k *model.PublicKey) Key {
	return Key{Key: k.Key, ID: k.ID, URL: u.UserKeyURL(k.ID), Title: k.Title, CreatedAt: Time(k.CreatedAt),
		Verified: k.Verified, ReadOnly: k.ReadOnly, LastUsed: TimePtr(k.LastUsed)}
}

// ToKeySimple converts a user's key for anyone.
func ToKeySimple(k *model.PublicKey) KeySimple {
	return KeySimple{ID: k.ID, Key: k.Key, CreatedAt: Time(k.CreatedAt), LastUsed: TimePtr(k.LastUsed)}
}

// ToDeployKey converts a deploy key of repo.
func (u URLs) ToDeployKey(repo *model.Repo, k *model.PublicKey) DeployKey {
	return DeployKey{ID: k.ID, Key: k.Key, URL: u.RepoAPIURL(repo) + "/keys/" + strconv.FormatInt(k.ID, 10), Title: k.Title,
		Verified: k.Verified, CreatedAt: Time(k.CreatedAt), ReadOnly: k.ReadOnly, AddedBy: optString(k.AddedBy),
		LastUsed: TimePtr(k.LastUsed), Enabled: !k.Disabled}
}

// ToPublicKeyFull converts any key (a deploy key's url names its
// repository by RepoFullName).
func (u URLs) ToPublicKeyFull(k *model.PublicKey) PublicKeyFull {
	out := PublicKeyFull{ID: k.ID, Key: k.Key, URL: u.UserKeyURL(k.ID), Title: k.Title, ReadOnly: k.ReadOnly,
		Verified: k.Verified, CreatedAt: Time(k.CreatedAt), AddedBy: optString(k.AddedBy), LastUsed: TimePtr(k.LastUsed), Enabled: true}
	if k.UserID != 0 {
		id := k.UserID
		out.UserID = &id
	}
	if k.RepoID != 0 {
		id := k.RepoID
		out.RepositoryID = &id
		out.URL = u.API + "/repos/" + k.RepoFullName + "/keys/" + strconv.FormatInt(k.ID, 10)
	}
	return out
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

package deps

import (
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// TempCloneToken is the temp_clone_token of repo for caller c with perm
// on it: a token for a user who may clone it while it is private, nil
// otherwise (internal/tempclone).
func (d *Deps) TempCloneToken(c *authz.Caller, repo *model.Repo, perm authz.Permission) *string {
	if d.CloneTokens == nil || !repo.Private() || perm < authz.Read || c.UserID() == 0 {
		return nil
	}
	tok := d.CloneTokens.Token(repo.ID, c.UserID())
	return &tok
}

package clients_test

import (
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// TestOctokitOAuth runs @octokit/auth-oauth-device's device flow and
// @octokit/oauth-methods' web flow, refresh and token operations against
// hubd.
func TestOctokitOAuth(t *testing.T) {
	e := apitest.New(t)
	u, _ := e.NewUser("octo-user", false)
	e.SetPassword(u.Login, "octo password 1")
	runNode(t, "oauth.test.mjs", "HUBD_URL="+e.URL, "HUBD_TOKEN="+e.AdminToken, "HUBD_LOGIN="+u.Login, "HUBD_PASSWORD=octo password 1")
}

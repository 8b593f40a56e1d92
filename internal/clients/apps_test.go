package clients_test

import (
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// TestOctokitAuthApp runs @octokit/auth-app's JWT and installation token
// flow against hubd.
func TestOctokitAuthApp(t *testing.T) {
	e := apitest.New(t)
	runNode(t, "apps.test.mjs", "HUBD_URL="+e.URL, "HUBD_TOKEN="+e.AdminToken)
}

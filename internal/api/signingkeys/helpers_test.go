package signingkeys_test

import (
	"os/exec"
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// fineGrained makes a fine-grained personal access token of u with no
// permissions.
func fineGrained(t *testing.T, e *apitest.Env, u *model.Account) string {
	t.Helper()
	var tok string
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		tok, _, err = tx.CreateToken(ctx, u.ID, authz.FineGrained, nil, "", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return tok
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

// countEvents counts the domain events of a type.
func countEvents(t *testing.T, e *apitest.Env, typ string) int {
	t.Helper()
	evs, err := e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

// countRows counts a user's primary GPG keys or SSH signing keys.
func countRows(t *testing.T, e *apitest.Env, table string, userID int64) int {
	t.Helper()
	var total int
	var err error
	switch table {
	case "gpg_keys":
		_, total, err = e.Store.R().GPGKeys(ctx, userID, 1, 0)
	case "ssh_signing_keys":
		_, total, err = e.Store.R().SSHSigningKeys(ctx, userID, 1, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// execOut runs a program and answers its combined output.
func execOut(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

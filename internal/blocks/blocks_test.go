package blocks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hubd/hubd/internal/blocks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

func TestBlocked(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	owner := &model.Account{Login: "mona", Type: model.TypeUser}
	other := &model.Account{Login: "hubot", Type: model.TypeUser}
	if err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, owner); err != nil {
			return err
		}
		if err := tx.CreateAccount(ctx, other); err != nil {
			return err
		}
		_, err := tx.AddBlock(ctx, owner.ID, other.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	svc := blocks.New(s)
	cases := []struct {
		name string
		repo *model.Repo
		user int64
		want bool
	}{
		{"blocked user", &model.Repo{OwnerID: owner.ID}, other.ID, true},
		{"owner loaded without owner id", &model.Repo{Owner: owner}, other.ID, true},
		{"the owner", &model.Repo{OwnerID: owner.ID}, owner.ID, false},
		{"anonymous", &model.Repo{OwnerID: owner.ID}, 0, false},
		{"other owner", &model.Repo{OwnerID: other.ID}, owner.ID, false},
	}
	for _, c := range cases {
		got, err := svc.Blocked(ctx, c.repo, c.user)
		if err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
		rerr := svc.Refuse(ctx, c.repo, c.user, "IssueComment")
		var ve *model.ValidationError
		if c.want != errors.As(rerr, &ve) || c.want && (ve.Errors[0].Resource != "IssueComment" || ve.Errors[0].Message != "User is blocked") {
			t.Errorf("%s: Refuse = %v", c.name, rerr)
		}
	}
	if b, err := svc.BlockedBy(ctx, owner.ID, other.ID); err != nil || !b {
		t.Errorf("BlockedBy(owner, other) = %v %v", b, err)
	}
	if b, err := svc.BlockedBy(ctx, other.ID, owner.ID); err != nil || b {
		t.Errorf("BlockedBy(other, owner) = %v %v", b, err)
	}
}

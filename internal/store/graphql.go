package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// AccountsByID loads whole accounts (the slim ones of issue rows carry
// only id, login, type and site_admin), in one query.
func (q Q) AccountsByID(ctx context.Context, ids []int64) (map[int64]*model.Account, error) {
	out := make(map[int64]*model.Account, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	for _, a := range list {
		out[a.ID] = a
	}
	return out, nil
}

// LabelsByID loads labels by id, in one query.
func (q Q) LabelsByID(ctx context.Context, ids []int64) (map[int64]*model.Label, error) {
	out := make(map[int64]*model.Label, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.labels(ctx, `SELECT `+labelCols+` FROM labels l WHERE l.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	for _, l := range list {
		out[l.ID] = l
	}
	return out, nil
}

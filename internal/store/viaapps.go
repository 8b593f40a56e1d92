package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// appsOfBots maps bot accounts to the GitHub Apps they act for, with the
// apps' owners: what an app writes with an installation token is authored
// by its bot, so the author names the app of performed_via_github_app.
// No query when there is no bot.
func (q Q) appsOfBots(ctx context.Context, botIDs []int64) (map[int64]*model.App, error) {
	out := map[int64]*model.App{}
	if len(botIDs) == 0 {
		return out, nil
	}
	in, args := inList(uniq(botIDs))
	rows, err := q.query(ctx, `SELECT `+appCols+` FROM apps p WHERE p.bot_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var owners []int64
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, err
		}
		out[a.BotID] = a
		owners = append(owners, a.OwnerID)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	accounts, err := q.AccountsByID(ctx, uniq(owners))
	if err != nil {
		return nil, err
	}
	for _, a := range out {
		a.Owner = accounts[a.OwnerID]
	}
	return out, nil
}

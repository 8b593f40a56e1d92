package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// What a GitHub App wrote shows the app as performed_via_github_app. With
// an installation token the author is the app's bot, which names the app;
// with a user access token (ghu_) the author is the user, so the write
// records the app in its via_app_id column. The server puts the app of a
// ghu_ caller in the request's context (WithViaApp) and the inserts of
// issues, comments and issue events read it there: every path that writes
// them records it without threading the caller through.

type viaAppKey struct{}

// WithViaApp marks ctx as acting for a user through a GitHub App.
func WithViaApp(ctx context.Context, appID int64) context.Context {
	if appID == 0 {
		return ctx
	}
	return context.WithValue(ctx, viaAppKey{}, appID)
}

// viaAppOf is the app a write is made through (0: none).
func viaAppOf(ctx context.Context) int64 {
	id, _ := ctx.Value(viaAppKey{}).(int64)
	return id
}

// viaApps loads the GitHub Apps of bot accounts (by bot id) and of
// recorded app ids (by app id) in one query, with their owners; no query
// when there is neither.
func (q Q) viaApps(ctx context.Context, botIDs, appIDs []int64) (byBot, byID map[int64]*model.App, err error) {
	byBot, byID = map[int64]*model.App{}, map[int64]*model.App{}
	if len(botIDs)+len(appIDs) == 0 {
		return byBot, byID, nil
	}
	where, args := "", []any{}
	if len(botIDs) > 0 {
		in, a := inList(uniq(botIDs))
		where, args = `p.bot_id IN (`+in+`)`, append(args, a...)
	}
	if len(appIDs) > 0 {
		in, a := inList(uniq(appIDs))
		if where != "" {
			where += ` OR `
		}
		where, args = where+`p.id IN (`+in+`)`, append(args, a...)
	}
	rows, err := q.query(ctx, `SELECT `+appCols+` FROM apps p WHERE `+where, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var owners []int64
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, nil, err
		}
		byID[a.ID] = a
		if a.BotID != 0 {
			byBot[a.BotID] = a
		}
		owners = append(owners, a.OwnerID)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	accounts, err := q.AccountsByID(ctx, uniq(owners))
	if err != nil {
		return nil, nil, err
	}
	for _, a := range byID {
		a.Owner = accounts[a.OwnerID]
	}
	return byBot, byID, nil
}

// viaApp is the app a row was written through: its recorded app, else the
// app whose bot wrote it.
func viaApp(byBot, byID map[int64]*model.App, authorID, appID int64) *model.App {
	if appID != 0 {
		if a := byID[appID]; a != nil {
			return a
		}
	}
	return byBot[authorID]
}

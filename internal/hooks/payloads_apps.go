package hooks

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/model"
)

// App payloads: installation and installation_repositories go to the
// app's own webhook only (never to repository or organization hooks),
// whatever events the installation subscribed to, as on GitHub.

// appOnly says whether a domain event's webhooks go to its app alone.
func appOnly(typ string) bool {
	switch typ {
	case "installation.created", "installation.deleted", "installation.suspend", "installation.unsuspend",
		"installation.new_permissions_accepted", "installation_repositories.added", "installation_repositories.removed":
		return true
	}
	return false
}

// appPairs are the webhook events of an installation domain event.
func appPairs(typ, sub string) []pair {
	if !appOnly(typ + "." + sub) {
		return nil
	}
	return []pair{{typ, sub}}
}

// installation loads the installation of an event; a deleted one is made
// again from its app and account (its row is gone).
func (b *builder) installation(ctx context.Context, d domain) (*model.Installation, error) {
	in, err := b.q.InstallationByID(ctx, d.int("installation_id"))
	if err == nil || !errors.Is(err, model.ErrNotFound) {
		return in, err
	}
	app, err := b.q.AppByID(ctx, d.int("app_id"))
	if err != nil {
		return nil, err
	}
	acc, err := b.account(ctx, d.int("account_id"))
	if err != nil {
		return nil, err
	}
	if acc == nil {
		return nil, model.ErrNotFound
	}
	return &model.Installation{ID: d.int("installation_id"), AppID: app.ID, App: app, AccountID: acc.ID, Account: acc,
		Selection: model.SelectAll, Permissions: app.Permissions, Events: app.Events, CreatedAt: app.CreatedAt, UpdatedAt: app.UpdatedAt}, nil
}

// repoRef is a repository as installation payloads list it.
func (b *builder) repoRef(ctx context.Context, id int64) (map[string]any, error) {
	r, err := b.repo(ctx, id)
	if err != nil {
		return nil, err
	}
	obj := b.repoJSON[r.ID]
	return map[string]any{"id": r.ID, "node_id": obj["node_id"], "name": r.Name, "full_name": r.FullName(),
		"private": r.Visibility != model.Public}, nil
}

func (b *builder) installationEvent(ctx context.Context, e model.Event, d domain, event, action string, out map[string]any) (int64, error) {
	in, err := b.installation(ctx, d)
	if err != nil {
		return 0, err
	}
	inst, err := toMap(b.s.URLs.ToInstallation(in))
	if err != nil {
		return 0, err
	}
	out["installation"] = inst
	delete(out, "repository")
	requester := any(nil)
	if sender, ok := out["sender"]; ok && e.ActorID != 0 {
		requester = sender
	}
	switch event {
	case "installation":
		if action == "created" {
			out["requester"] = requester
			list := []map[string]any{}
			// The repositories of a selection (an installation on all
			// of an account's repositories lists none).
			for _, id := range idList(d["repository_ids"]) {
				ref, err := b.repoRef(ctx, id)
				if errors.Is(err, model.ErrNotFound) {
					continue
				}
				if err != nil {
					return 0, err
				}
				list = append(list, ref)
			}
			out["repositories"] = list
		}
	case "installation_repositories":
		ref, err := b.repoRef(ctx, d.int("repository_id"))
		if err != nil {
			return 0, err
		}
		added, removed := []map[string]any{}, []map[string]any{}
		if action == "added" {
			added = append(added, ref)
		} else {
			removed = append(removed, ref)
		}
		out["repositories_added"], out["repositories_removed"] = added, removed
		out["repository_selection"], out["requester"] = in.Selection, requester
	}
	return in.ID, nil
}

// idList reads a JSON array of ids.
func idList(v any) []int64 {
	list, _ := v.([]any)
	out := make([]int64, 0, len(list))
	for _, x := range list {
		if f, ok := x.(float64); ok {
			out = append(out, int64(f))
		}
	}
	return out
}

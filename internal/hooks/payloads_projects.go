package hooks

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Projects (v2) webhooks: projects_v2 and projects_v2_item, of
// organization projects only (GitHub sends none for users' projects).
// The domain events carry the project or item as it was after the change.

var projectActions = map[string]bool{"created": true, "edited": true, "closed": true, "reopened": true, "deleted": true}

var projectItemActions = map[string]bool{"created": true, "edited": true, "archived": true, "restored": true, "deleted": true, "converted": true}

func projectPairs(e model.Event, typ, sub string) []pair {
	if e.OrgID == 0 {
		return nil
	}
	if typ == "projects_v2" && projectActions[sub] || typ == "projects_v2_item" && projectItemActions[sub] {
		return []pair{{typ, sub}}
	}
	return nil
}

// projectEvent: projects_v2 with the project.
func (b *builder) projectEvent(ctx context.Context, e model.Event, d domain, out map[string]any) error {
	var p model.Project
	if ok, err := d.row("project", &p); err != nil || !ok {
		if err == nil {
			err = model.ErrNotFound
		}
		return err
	}
	owner, err := b.account(ctx, e.OrgID)
	if err != nil {
		return err
	}
	if owner == nil {
		return model.ErrNotFound
	}
	creator, err := b.account(ctx, p.CreatorID)
	if err != nil {
		return err
	}
	out["projects_v2"] = b.s.URLs.ToProjectV2(&p, owner, creator)
	return nil
}

// projectItemEvent: projects_v2_item with the item and, for an edit, the
// field changed.
func (b *builder) projectItemEvent(ctx context.Context, d domain, action string, out map[string]any) error {
	var it model.ProjectItem
	if ok, err := d.row("item", &it); err != nil || !ok {
		if err == nil {
			err = model.ErrNotFound
		}
		return err
	}
	item := map[string]any{
		"id": it.ID, "node_id": wire.NodeID("PVTI", it.ID), "project_node_id": wire.NodeID("PVT", d.int("project_id")),
		"content_type": it.ContentType, "created_at": wire.Time(it.CreatedAt), "updated_at": wire.Time(it.UpdatedAt),
		"archived_at": wire.TimePtr(it.ArchivedAt),
	}
	switch it.ContentType {
	case "Issue":
		item["content_node_id"] = wire.NodeID("I", it.IssueID)
	case "PullRequest":
		item["content_node_id"] = wire.NodeID("PR", it.IssueID)
	default:
		item["content_node_id"] = wire.NodeID("DI", it.ID)
	}
	creator, err := b.account(ctx, it.CreatorID)
	if err != nil {
		return err
	}
	if creator != nil {
		item["creator"] = b.s.URLs.ToSimpleUser(creator)
	}
	out["projects_v2_item"] = item
	ch, _ := d["changes"].(map[string]any)
	if action == "archived" || action == "restored" {
		out["changes"] = ch
	}
	if action == "edited" && ch != nil {
		f := &model.ProjectField{ID: domain(ch).int("field_id"), DataType: domain(ch).str("field_type")}
		out["changes"] = map[string]any{"field_value": map[string]any{
			"field_node_id": wire.ProjectFieldNodeID(f), "field_type": f.DataType, "field_name": domain(ch).str("field_name"),
			"project_number": d.int("project_number"),
		}}
	}
	return nil
}

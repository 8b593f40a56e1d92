package teams

import (
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// What go-github's UpdateTeamRequest sends when only some fields are set:
// "name": null (GitHub treats it as absent), and with RemoveParentTeam
// "parent_team_id": null and "parent_team_slug": null.
func TestApplyNullName(t *testing.T) {
	desc := "old"
	team := &model.Team{Name: "Core", Slug: "core", Description: &desc, Privacy: model.TeamClosed}
	in := Input{Name: Opt[string]{Set: true, Null: true}, Description: Opt[string]{Set: true, Value: "new"}}
	if err := apply(team, in, false); err != nil {
		t.Fatal(err)
	}
	if team.Name != "Core" || team.Slug != "core" || team.Description == nil || *team.Description != "new" {
		t.Fatalf("null name on update: %+v", team)
	}
	// On create a name is required, null or not.
	if err := apply(&model.Team{}, Input{Name: Opt[string]{Set: true, Null: true}}, true); err == nil {
		t.Fatal("create without a name")
	}
	id, set, err := parent(t.Context(), store.Q{}, 0, Input{ParentTeamID: Opt[int64]{Set: true, Null: true}, ParentTeamSlug: Opt[string]{Set: true, Null: true}})
	if err != nil || !set || id != 0 {
		t.Fatalf("null parent: %d %v %v", id, set, err)
	}
}

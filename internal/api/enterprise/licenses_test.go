package enterprise_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func TestLicensing(t *testing.T) {
	ctx := context.Background()
	e := apitest.New(t)
	tok := e.Token(e.Admin, "admin:enterprise")
	billing := e.GitHub(e.Token(e.Admin, "manage_billing:enterprise"))
	readTok := e.Token(e.Admin, "read:enterprise")
	ent := e.GitHub(tok)
	olga, olgaTok := e.NewUser("olga", false)
	mike, _ := e.NewUser("mike", false)
	sam, _ := e.NewUser("sam", false) // suspended member: no seat
	e.NewUser("lone", false)          // in no organization: no seat
	cole, _ := e.NewUser("cole", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		for _, u := range []*model.Account{mike, sam} {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	repo, _, err := e.GitHub(olgaTok).Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("core")})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	err = e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetCollaborator(ctx, repo.GetID(), cole.ID, 2); err != nil {
			return err
		}
		sam.SuspendedAt = &now
		return tx.UpdateAccount(ctx, sam)
	})
	if err != nil {
		t.Fatal(err)
	}

	lic, _, err := ent.Enterprise.ListConsumedLicenses(ctx, "hubd", nil)
	if err != nil {
		t.Fatal(err)
	}
	logins := []string{}
	for _, u := range lic.Users {
		logins = append(logins, u.GithubComLogin)
	}
	if lic.TotalSeatsConsumed != 3 || len(logins) != 3 || logins[0] != "cole" || logins[1] != "mike" || logins[2] != "olga" {
		t.Fatalf("consumed = %d %v", lic.TotalSeatsConsumed, logins)
	}
	if r := lic.Users[2].GithubComMemberRoles; len(r) != 1 || r[0] != "octo:Owner" {
		t.Fatalf("olga's roles = %v", r)
	}
	r := e.Must(200, "GET", "/enterprises/hubd/consumed-licenses?per_page=2", readTok, nil)
	if r.Header.Get("Link") == "" {
		t.Fatalf("no Link: %s", r.Body)
	}
	var sync map[string][]any
	e.Must(200, "GET", "/enterprises/hubd/license-sync-status", readTok, nil).JSON(t, &sync)
	if list, ok := sync["server_instances"]; !ok || len(list) != 0 {
		t.Fatalf("sync = %v", sync)
	}

	// Visual Studio subscriptions: manual matches by login or email.
	const sub = "0f8fad5b-d9cb-469f-a165-70867728950e"
	m, _, err := billing.Enterprise.AddOrUpdateVisualStudioSubscriptionAssignment(ctx, "hubd", sub,
		github.VisualStudioSubscriptionAssignmentRequest{UserIdentifier: github.Ptr("mike")})
	if err != nil || m.GetUsername() != "mike" || !m.GetManualMatch() || m.GetSubscriptionID() != sub {
		t.Fatalf("match = %+v %v", m, err)
	}
	lic, _, err = ent.Enterprise.ListConsumedLicenses(ctx, "hubd", nil)
	if err != nil || !lic.Users[1].VisualStudioSubscriptionUser || lic.Users[1].LicenseType != "visual_studio" {
		t.Fatalf("consumed after match = %+v %v", lic.Users[1], err)
	}
	for _, bad := range []struct {
		id, who string
		code    int
	}{{"not-a-guid", "mike", 404}, {sub, "nobody", 422}, {sub, "", 422}, {sub, "octo", 422}} {
		e.Must(bad.code, "PUT", "/enterprises/hubd/visual-studio-subscriptions/"+bad.id, tok, map[string]any{"user_identifier": bad.who})
	}
	subs, _, err := ent.Enterprise.ListVisualStudioSubscriptions(ctx, "hubd", nil)
	if err != nil || subs.GetTotalCount() != 1 || subs.VisualStudioSubscriptions[0].GetUsername() != "mike" {
		t.Fatalf("subscriptions = %+v %v", subs, err)
	}
	un, _, err := ent.Enterprise.ListVisualStudioSubscriptions(ctx, "hubd", &github.ListVisualStudioSubscriptionsOptions{IsUnmatchedOnly: true})
	if err != nil || un.GetTotalCount() != 0 {
		t.Fatalf("unmatched = %+v %v", un, err)
	}
	if _, err := billing.Enterprise.DeleteVisualStudioSubscriptionAssignment(ctx, "hubd", sub); err != nil {
		t.Fatal(err)
	}
	un, _, err = ent.Enterprise.ListVisualStudioSubscriptions(ctx, "hubd", &github.ListVisualStudioSubscriptionsOptions{IsUnmatchedOnly: true})
	if err != nil || un.GetTotalCount() != 1 || un.VisualStudioSubscriptions[0].Username != nil || un.VisualStudioSubscriptions[0].GetManualMatch() {
		t.Fatalf("unmatched after delete = %+v %v", un, err)
	}
	e.Must(404, "DELETE", "/enterprises/hubd/visual-studio-subscriptions/1f8fad5b-d9cb-469f-a165-70867728950e", tok, nil)

	// Enterprise owners only, with a billing or enterprise scope.
	e.Must(401, "GET", "/enterprises/hubd/consumed-licenses", "", nil)
	e.Must(403, "GET", "/enterprises/hubd/consumed-licenses", olgaTok, nil)
	e.Must(403, "GET", "/enterprises/hubd/consumed-licenses", e.Token(e.Admin, "read:org"), nil)
	e.Must(403, "PUT", "/enterprises/hubd/visual-studio-subscriptions/"+sub, readTok, map[string]any{"user_identifier": "mike"})
}

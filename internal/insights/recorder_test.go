package insights

import (
	"testing"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// BenchmarkRecord is what counting costs a request (the server calls
// Record once per core request naming an account), all cores recording
// at once; compare it with a request's time in bench/insights.sh.
func BenchmarkRecord(b *testing.B) {
	r := NewRecorder(nil, nil)
	r.SetFlushEvery(time.Hour) // nothing is written (there is no store)
	c := &authz.Caller{Kind: authz.ClassicPAT, User: &model.Account{ID: 7, Login: "mona"}, TokenID: 3}
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Record("Acme", "GET", "/repos/{owner}/{repo}", c, false, now)
		}
	})
}

// TestActor: each kind of credential is counted as GitHub names it.
func TestActor(t *testing.T) {
	u := &model.Account{ID: 7, Login: "mona"}
	bot := &model.Account{ID: 9, Login: "reader[bot]"}
	for _, c := range []struct {
		caller                 *authz.Caller
		typ, name, subjectType string
		id, user, subject      int64
	}{
		{&authz.Caller{Kind: authz.ClassicPAT, User: u, TokenID: 3}, "classic_pat", "mona", "user", 3, 7, 7},
		{&authz.Caller{Kind: authz.FineGrained, User: u, TokenID: 4}, "fine_grained_pat", "mona", "user", 4, 7, 7},
		{&authz.Caller{Kind: authz.UserToServer, User: u, TokenID: 5, AppID: 2}, "github_app_user_to_server", "", "user", 2, 7, 7},
		{&authz.Caller{Kind: authz.Installation, User: bot, InstallationID: 11, AppID: 2}, "installation", "reader", "integration", 11, 0, 2},
		{&authz.Caller{Kind: authz.OAuthApp, User: u, TokenID: 6, ClientID: "Iv1.x"}, "oauth_app", "mona", "user", 0, 7, 7},
	} {
		k, v, ok := Actor(c.caller)
		if !ok || k.ActorType != c.typ || k.ActorID != c.id || k.UserID != c.user || v.ActorName != c.name || v.SubjectType != c.subjectType || v.SubjectID != c.subject {
			t.Errorf("%s: %+v %+v %v", c.caller.Kind, k, v, ok)
		}
	}
	if _, _, ok := Actor(&authz.Caller{}); ok {
		t.Error("anonymous callers are counted")
	}
}

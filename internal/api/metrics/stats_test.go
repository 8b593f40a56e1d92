package metrics_test

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// history builds a known history in mona/stats and pushes it:
//
//	C1 stranger 2023-12-25 08:00 +0000 (Mon)  adds c.txt (2 lines)
//	C2 mona     2024-06-02 10:00 +0000 (Sun)  adds a.txt (3 lines)
//	C3 mona     2024-06-04 15:30 +0200 (Tue)  changes a line of a.txt
//	C4 hubot    2024-06-10 09:00 -0700 (Mon)  adds b.txt (5 lines)
//	C5 hubot    2024-06-11 23:30 -0700 (Tue; Wed 06:30 UTC), on a branch: adds d.txt (1 line)
//	C6 mona     2024-06-12 12:00 +0000 (Wed)  deletes c.txt
//	M7 mona     2024-06-13 10:00 +0000        merges the branch (merges are not counted)
//
// mona commits with her noreply address, hubot with the email of his
// account, the stranger with an address no user has.
func history(t *testing.T, e *apitest.Env, monaID int64, monaTok string) *work {
	mona := func(when string) identity {
		return identity{"Mona Lisa", fmt.Sprintf("%d+mona@users.noreply.127.0.0.1", monaID), when}
	}
	hubot := func(when string) identity { return identity{"Hubot", "hubot@example.com", when} }
	w := newWork(t)
	w.commit(identity{"Stranger", "stranger@example.com", "2023-12-25T08:00:00+00:00"}, "c", map[string]*string{"c.txt": text("1\n2\n")})
	w.commit(mona("2024-06-02T10:00:00+00:00"), "a", map[string]*string{"a.txt": text("1\n2\n3\n")})
	w.commit(mona("2024-06-04T15:30:00+02:00"), "a2", map[string]*string{"a.txt": text("1\ntwo\n3\n")})
	w.commit(hubot("2024-06-10T09:00:00-07:00"), "b", map[string]*string{"b.txt": text("1\n2\n3\n4\n5\n")})
	w.git(nil, "checkout", "-q", "-b", "side")
	w.commit(hubot("2024-06-11T23:30:00-07:00"), "d", map[string]*string{"d.txt": text("1\n")})
	w.git(nil, "checkout", "-q", "main")
	w.commit(mona("2024-06-12T12:00:00+00:00"), "rm c", map[string]*string{"c.txt": nil})
	w.git(mona("2024-06-13T10:00:00+00:00").env(), "merge", "-q", "--no-ff", "-m", "merge side", "side")
	w.git(nil, "push", "-q", remote(e, "mona", monaTok, "mona", "stats"), "main:main")
	return w
}

// fixedNow is the clock of the statistics tests: Saturday 2024-06-15.
var fixedNow = time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC)

func TestStatistics(t *testing.T) {
	e := apitest.New(t)
	e.Store.SetClock(func() time.Time { return fixedNow })
	mona, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	if _, _, err := e.GitHub(hubotTok).Users.Update(ctx, github.UserUpdateRequest{Email: github.Ptr("hubot@example.com")}); err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(monaTok)
	createRepo(t, e, monaTok, "stats", "", false)

	// An empty repository has no statistics: 204 (participation: zeros).
	for _, p := range []string{"code_frequency", "commit_activity", "contributors", "punch_card"} {
		e.Must(http.StatusNoContent, "GET", "/repos/mona/stats/stats/"+p, monaTok, nil)
	}
	part, _, err := gh.Repositories.ListParticipation(ctx, "mona", "stats")
	if err != nil || len(part.All) != 52 || sum(part.All) != 0 {
		t.Fatalf("participation of an empty repository: %v %v", part, err)
	}

	w := history(t, e, mona.ID, monaTok)

	// The first request starts the computation: 202 with an empty object,
	// as GitHub; go-github reports an AcceptedError.
	_, resp, err := gh.Repositories.ListContributorsStats(ctx, "mona", "stats")
	var acc *github.AcceptedError
	if !errors.As(err, &acc) || resp.StatusCode != http.StatusAccepted || string(acc.Raw) != "{}\n" {
		t.Fatalf("first contributors request: %v %v %q", resp, err, acc)
	}
	contributors := eventually(t, func() ([]*github.ContributorStats, *github.Response, error) {
		return gh.Repositories.ListContributorsStats(ctx, "mona", "stats")
	})

	weekOf := func(s string) int64 {
		d := mustTime(t, s).UTC()
		d = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -int(d.Weekday())).Unix()
	}
	first, last := weekOf("2023-12-25T08:00:00Z"), weekOf("2024-06-12T12:00:00Z")
	nweeks := int((last-first)/(7*86400)) + 1
	if nweeks != 25 {
		t.Fatalf("weeks: %d", nweeks)
	}
	type wk struct{ a, d, c int }
	want := []struct {
		login string // "" for no user
		total int
		weeks map[int64]wk
	}{
		{"", 1, map[int64]wk{first: {2, 0, 1}}},
		{"hubot", 2, map[int64]wk{last: {6, 0, 2}}},
		{"mona", 3, map[int64]wk{weekOf("2024-06-02T00:00:00Z"): {4, 1, 2}, last: {0, 2, 1}}},
	}
	if len(contributors) != len(want) {
		t.Fatalf("contributors: %d", len(contributors))
	}
	for i, c := range contributors {
		wnt := want[i]
		if c.Author.GetLogin() != wnt.login || c.GetTotal() != wnt.total || len(c.Weeks) != nweeks {
			t.Fatalf("contributor %d: %s total %d weeks %d, want %+v", i, c.Author.GetLogin(), c.GetTotal(), len(c.Weeks), wnt)
		}
		for j, ws := range c.Weeks {
			at := ws.Week.Unix()
			if at != first+int64(j)*7*86400 {
				t.Fatalf("week %d of %s: %v", j, wnt.login, ws.Week)
			}
			got := wk{ws.GetAdditions(), ws.GetDeletions(), ws.GetCommits()}
			if got != wnt.weeks[at] {
				t.Errorf("%s week %s: %+v, want %+v", wnt.login, ws.Week.UTC().Format("2006-01-02"), got, wnt.weeks[at])
			}
		}
	}
	if contributors[1].Author.GetID() == 0 || contributors[0].Author != nil {
		t.Fatalf("authors: %+v %+v", contributors[0].Author, contributors[1].Author)
	}

	// The other statistics come from the same computation: no 202.
	freq, _, err := gh.Repositories.ListCodeFrequency(ctx, "mona", "stats")
	if err != nil || len(freq) != nweeks {
		t.Fatalf("code frequency: %d %v", len(freq), err)
	}
	lines := map[int64][2]int{first: {2, 0}, weekOf("2024-06-02T00:00:00Z"): {4, -1}, last: {6, -2}}
	for _, f := range freq {
		if got := [2]int{f.GetAdditions(), f.GetDeletions()}; got != lines[f.Week.Unix()] {
			t.Errorf("code frequency %s: %v, want %v", f.Week.UTC().Format("2006-01-02"), got, lines[f.Week.Unix()])
		}
	}

	activity, _, err := gh.Repositories.ListCommitActivity(ctx, "mona", "stats")
	if err != nil || len(activity) != 52 {
		t.Fatalf("commit activity: %d %v", len(activity), err)
	}
	days := map[int64][]int{
		last:                           {0, 1, 0, 2, 0, 0, 0},
		weekOf("2024-06-02T00:00:00Z"): {1, 0, 1, 0, 0, 0, 0},
		weekOf("2023-12-25T00:00:00Z"): {0, 1, 0, 0, 0, 0, 0},
	}
	if activity[51].Week.Unix() != last || activity[0].Week.Unix() != last-51*7*86400 {
		t.Fatalf("commit activity weeks: %v .. %v", activity[0].Week, activity[51].Week)
	}
	for _, a := range activity {
		wd := days[a.Week.Unix()]
		if wd == nil {
			wd = make([]int, 7)
		}
		if !reflect.DeepEqual(a.Days, wd) || a.GetTotal() != sum(wd) {
			t.Errorf("commit activity %s: %v %d, want %v", a.Week.UTC().Format("2006-01-02"), a.Days, a.GetTotal(), wd)
		}
	}

	part, _, err = gh.Repositories.ListParticipation(ctx, "mona", "stats")
	if err != nil || len(part.All) != 52 || len(part.Owner) != 52 {
		t.Fatalf("participation: %v %v", part, err)
	}
	wantAll, wantOwner := make([]int, 52), make([]int, 52)
	wantAll[51], wantOwner[51] = 3, 1 // [Jun 8, Jun 15): C4, C5, C6
	wantAll[50], wantOwner[50] = 2, 2 // [Jun 1, Jun 8): C2, C3
	wantAll[27] = 1                   // [Dec 23, Dec 30): C1
	if !reflect.DeepEqual(part.All, wantAll) || !reflect.DeepEqual(part.Owner, wantOwner) {
		t.Fatalf("participation:\n all %v\nowner %v", part.All, part.Owner)
	}

	punch, _, err := gh.Repositories.ListPunchCard(ctx, "mona", "stats")
	if err != nil || len(punch) != 168 {
		t.Fatalf("punch card: %d %v", len(punch), err)
	}
	hours := map[[2]int]int{{1, 8}: 1, {0, 10}: 1, {2, 15}: 1, {1, 9}: 1, {2, 23}: 1, {3, 12}: 1}
	for i, p := range punch {
		if p.GetDay() != i/24 || p.GetHour() != i%24 || p.GetCommits() != hours[[2]int{p.GetDay(), p.GetHour()}] {
			t.Errorf("punch card %d: %d %d %d", i, p.GetDay(), p.GetHour(), p.GetCommits())
		}
	}

	// A push makes them stale: 202 again, then the new history.
	w.commit(identity{"Hubot", "hubot@example.com", "2024-06-14T10:00:00+00:00"}, "e", map[string]*string{"e.txt": text("1\n2\n")})
	w.git(nil, "push", "-q", remote(e, "mona", monaTok, "mona", "stats"), "main:main")
	e.Must(http.StatusAccepted, "GET", "/repos/mona/stats/stats/code_frequency", monaTok, nil)
	freq = eventually(t, func() ([]*github.WeeklyStats, *github.Response, error) {
		return gh.Repositories.ListCodeFrequency(ctx, "mona", "stats")
	})
	if f := freq[len(freq)-1]; f.GetAdditions() != 8 || f.GetDeletions() != -2 {
		t.Fatalf("after the push: %v", f)
	}
	contributors, _, err = gh.Repositories.ListContributorsStats(ctx, "mona", "stats")
	if err != nil || contributors[2].Author.GetLogin() != "hubot" || contributors[2].GetTotal() != 3 {
		t.Fatalf("after the push: %v", err)
	}
}

// eventually repeats a statistics request until it is no longer 202.
func eventually[T any](t *testing.T, f func() (T, *github.Response, error)) T {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, resp, err := f()
		var acc *github.AcceptedError
		if errors.As(err, &acc) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("statistics: %v %v", resp, err)
		}
		return v
	}
}

func sum(l []int) int {
	n := 0
	for _, v := range l {
		n += v
	}
	return n
}

func TestStatisticsAccess(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, otherTok := e.NewUser("other", false)
	createRepo(t, e, monaTok, "secret", "", true)
	for _, tc := range []struct {
		name, path, token string
		status            int
	}{
		{"hidden from others", "/repos/mona/secret/stats/contributors", otherTok, 404},
		{"hidden from anonymous", "/repos/mona/secret/stats/punch_card", "", 404},
		{"unknown repository", "/repos/mona/nope/stats/participation", monaTok, 404},
		{"community profile hidden", "/repos/mona/secret/community/profile", otherTok, 404},
		{"owner of an empty repository", "/repos/mona/secret/stats/commit_activity", monaTok, 204},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.Must(tc.status, "GET", tc.path, tc.token, nil)
		})
	}
}

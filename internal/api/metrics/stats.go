package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GitHub's rules for statistics.
const (
	// bigRepo is the commit count from which GitHub stops counting lines:
	// contributors report 0 additions and deletions, code_frequency a 422.
	bigRepo = 10000
	// maxContributors is how many contributors stats/contributors lists.
	maxContributors = 100
	// yearWeeks is the span of commit_activity and participation.
	yearWeeks = 52

	day  = 86400
	week = 7 * day

	// maxCached bounds the repositories whose statistics stay in memory.
	maxCached = 256
	// maxJobs bounds the computations running at once; more wait their
	// turn (answering 202 meanwhile).
	maxJobs = 2
	// jobTimeout stops a computation that takes unreasonably long.
	jobTimeout = 10 * time.Minute
)

// errTooManyCommits is code_frequency's answer for big repositories.
var errTooManyCommits = model.Unprocessable("Repository contains more than 10,000 commits")

// repoStats is everything the five statistics answer, computed from one
// pass over the history of the default branch's head.
type repoStats struct {
	commits      int     // commits walked (merges are left out)
	lines        bool    // additions and deletions were counted
	weeks        []int64 // every week from the first commit's to the last's
	contributors []contributorStat
	added        []int // per weeks[i]
	deleted      []int
	// Commits per UTC day (unix day number), for the days recent enough to
	// fall in a 52-week window: all authors and the repository's owner.
	days, ownerDays map[int64]int
	punch           [7][24]int // weekday (Sunday 0) × hour, in each author's zone
}

type contributorStat struct {
	account *model.Account // nil when no user has the address
	total   int
	// The weeks with commits, in order (sparse, so that memory follows the
	// commits rather than contributors × weeks).
	weeks []indexedWeek
}

type weekStat struct{ a, d, c int }

type indexedWeek struct {
	i int // index in repoStats.weeks
	weekStat
}

// statsCache holds each repository's statistics for one head commit.
type statsCache struct {
	mu      sync.Mutex
	entries map[int64]*statsEntry
	jobs    chan struct{}
}

type statsEntry struct {
	head   string
	done   chan struct{} // closed when res or err is set
	cancel context.CancelFunc
	res    *repoStats
	err    error
	used   time.Time
}

func (c *statsCache) init() {
	c.entries = map[int64]*statsEntry{}
	c.jobs = make(chan struct{}, maxJobs)
}

// drop forgets a repository's statistics, stopping their computation.
func (c *statsCache) drop(repoID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[repoID]; e != nil {
		e.cancel()
		delete(c.entries, repoID)
	}
}

// forget removes e if it is still the repository's entry (a failed
// computation is retried by the next request).
func (c *statsCache) forget(repoID int64, e *statsEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[repoID] == e {
		delete(c.entries, repoID)
	}
}

// statsJob is what a computation needs to know of its repository.
type statsJob struct {
	repoID  int64
	ownerID int64
	git     *gitrepo.Repo
	head    string
}

// entry returns the repository's statistics entry for head, starting their
// computation in the background when there is none yet.
func (h *Hub) entry(j statsJob) *statsEntry {
	c := &h.stats
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[j.repoID]; e != nil {
		if e.head == j.head {
			e.used = now
			return e
		}
		e.cancel()
	}
	ctx, cancel := context.WithTimeout(h.ctx, jobTimeout)
	e := &statsEntry{head: j.head, done: make(chan struct{}), cancel: cancel, used: now}
	c.entries[j.repoID] = e
	if len(c.entries) > maxCached {
		c.evict()
	}
	go h.compute(ctx, e, j)
	return e
}

// evict removes the least recently used finished entry.
func (c *statsCache) evict() {
	var oldest int64
	var at time.Time
	for id, e := range c.entries {
		select {
		case <-e.done:
		default:
			continue
		}
		if at.IsZero() || e.used.Before(at) {
			oldest, at = id, e.used
		}
	}
	if !at.IsZero() {
		delete(c.entries, oldest)
	}
}

func (h *Hub) compute(ctx context.Context, e *statsEntry, j statsJob) {
	defer close(e.done)
	defer e.cancel()
	select {
	case h.stats.jobs <- struct{}{}:
		defer func() { <-h.stats.jobs }()
	case <-ctx.Done():
		e.err = ctx.Err()
		return
	}
	start := time.Now()
	e.res, e.err = h.computeStats(ctx, j)
	if e.err != nil && ctx.Err() == nil {
		slog.Error("metrics: statistics", "repo_id", j.repoID, "head", j.head, "err", e.err)
	} else if e.err == nil {
		slog.Debug("metrics: statistics computed", "repo_id", j.repoID, "commits", e.res.commits, "took", time.Since(start))
	}
}

// computeStats walks the history once and aggregates the five statistics.
func (h *Hub) computeStats(ctx context.Context, j statsJob) (*repoStats, error) {
	total, err := j.git.CountCommits(ctx, j.head)
	if err != nil {
		return nil, err
	}
	now := h.d.Store.Now()
	a := newAggregate(now, total < bigRepo)
	if err := j.git.WalkStats(ctx, j.head, a.lines, a.add); err != nil {
		return nil, err
	}
	accounts, err := h.d.AccountsByCommitEmail(ctx, a.emails())
	if err != nil {
		return nil, err
	}
	return a.result(accounts, j.ownerID), nil
}

// aggregate accumulates one pass over the history.
type aggregate struct {
	now        int64
	recentFrom int64 // first unix day kept per day
	lines      bool
	commits    int
	authors    map[string]*authorAgg // by lower-case address
	weekLines  map[int64]*[2]int
	days       map[int64]int
	punch      [7][24]int
	first      int64
	last       int64
}

type authorAgg struct {
	email string
	total int
	weeks map[int64]*weekStat
	days  map[int64]int // recent days only
}

func newAggregate(now time.Time, lines bool) *aggregate {
	n := now.Unix()
	return &aggregate{
		now: n, recentFrom: floorDiv(n, day) - (yearWeeks+1)*7 - 1, lines: lines,
		authors: map[string]*authorAgg{}, weekLines: map[int64]*[2]int{}, days: map[int64]int{},
	}
}

func (a *aggregate) add(c *gitrepo.CommitStat) error {
	ts := c.When.Unix()
	if ts > a.now {
		ts = a.now // a clock in the future counts as now
	}
	if ts < 0 {
		ts = 0
	}
	w := weekOf(ts)
	if a.commits == 0 || w < a.first {
		a.first = w
	}
	if a.commits == 0 || w > a.last {
		a.last = w
	}
	a.commits++
	key := strings.ToLower(c.Email)
	au := a.authors[key]
	if au == nil {
		au = &authorAgg{email: c.Email, weeks: map[int64]*weekStat{}}
		a.authors[key] = au
	}
	au.total++
	ws := au.weeks[w]
	if ws == nil {
		ws = &weekStat{}
		au.weeks[w] = ws
	}
	ws.c++
	ws.a += c.Additions
	ws.d += c.Deletions
	wl := a.weekLines[w]
	if wl == nil {
		wl = &[2]int{}
		a.weekLines[w] = wl
	}
	wl[0] += c.Additions
	wl[1] += c.Deletions
	if d := floorDiv(ts, day); d >= a.recentFrom {
		a.days[d]++
		if au.days == nil {
			au.days = map[int64]int{}
		}
		au.days[d]++
	}
	local := c.When
	a.punch[local.Weekday()][local.Hour()]++
	return nil
}

func (a *aggregate) emails() []string {
	out := make([]string, 0, len(a.authors))
	for k := range a.authors {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// result groups authors into contributors (by user; addresses no user has
// stand alone) and lays every series out over the same weeks.
func (a *aggregate) result(accounts map[string]*model.Account, ownerID int64) *repoStats {
	s := &repoStats{commits: a.commits, lines: a.lines, days: a.days, ownerDays: map[int64]int{}, punch: a.punch}
	if a.commits == 0 {
		return s
	}
	for w := a.first; w <= a.last; w += week {
		s.weeks = append(s.weeks, w)
	}
	index := make(map[int64]int, len(s.weeks))
	for i, w := range s.weeks {
		index[w] = i
	}
	s.added, s.deleted = make([]int, len(s.weeks)), make([]int, len(s.weeks))
	for w, l := range a.weekLines {
		s.added[index[w]], s.deleted[index[w]] = l[0], l[1]
	}
	type group struct {
		account *model.Account
		key     string
		total   int
		weeks   map[int64]*weekStat
	}
	groups := map[string]*group{}
	for key, au := range a.authors {
		acc := accounts[key]
		gk := "e:" + key
		if acc != nil {
			gk = "u:" + strconv.FormatInt(acc.ID, 10)
			if acc.ID == ownerID {
				for d, n := range au.days {
					s.ownerDays[d] += n
				}
			}
		}
		g := groups[gk]
		if g == nil {
			g = &group{account: acc, key: key, weeks: map[int64]*weekStat{}}
			if acc != nil {
				g.key = strings.ToLower(acc.Login)
			}
			groups[gk] = g
		}
		g.total += au.total
		for w, ws := range au.weeks {
			if x := g.weeks[w]; x != nil {
				x.a, x.d, x.c = x.a+ws.a, x.d+ws.d, x.c+ws.c
			} else {
				cp := *ws
				g.weeks[w] = &cp
			}
		}
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	// The top contributors, then GitHub's order: fewest commits first.
	sort.Slice(list, func(i, j int) bool {
		if list[i].total != list[j].total {
			return list[i].total > list[j].total
		}
		return list[i].key < list[j].key
	})
	if len(list) > maxContributors {
		list = list[:maxContributors]
	}
	for i := len(list) - 1; i >= 0; i-- {
		g := list[i]
		cs := contributorStat{account: g.account, total: g.total, weeks: make([]indexedWeek, 0, len(g.weeks))}
		for w, ws := range g.weeks {
			cs.weeks = append(cs.weeks, indexedWeek{index[w], *ws})
		}
		sort.Slice(cs.weeks, func(i, j int) bool { return cs.weeks[i].i < cs.weeks[j].i })
		s.contributors = append(s.contributors, cs)
	}
	return s
}

// floorDiv divides rounding towards negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// weekOf is the start of the week (Sunday 00:00 UTC) holding ts.
func weekOf(ts int64) int64 {
	d := floorDiv(ts, day)
	wd := (d + 4) % 7 // 1970-01-01 was a Thursday
	if wd < 0 {
		wd += 7
	}
	return (d - wd) * day
}

// load finds the repository's statistics: ready is false while they are
// being computed (GitHub's 202), s is nil for a repository without commits.
// With wait set the request waits for the computation instead.
func (a *API) load(r *http.Request, wait bool) (s *repoStats, ready bool, err error) {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return nil, false, err
	}
	g := a.d.Git.Open(repo.ID)
	if !g.Exists() {
		return nil, true, nil
	}
	ctx := r.Context()
	for attempt := 0; ; attempt++ {
		info, err := g.Info(ctx, "refs/heads/"+repo.DefaultBranch)
		if errors.Is(err, gitrepo.ErrNotFound) {
			return nil, true, nil // nothing pushed to the default branch yet
		}
		if err != nil {
			return nil, false, err
		}
		e := a.hub.entry(statsJob{repoID: repo.ID, ownerID: repo.OwnerID, git: g, head: info.OID})
		if wait {
			select {
			case <-e.done:
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
		}
		select {
		case <-e.done:
		default:
			return nil, false, nil
		}
		if e.err != nil {
			a.hub.stats.forget(repo.ID, e)
			if errors.Is(e.err, context.Canceled) && a.hub.ctx.Err() == nil && attempt < 3 {
				continue // a push replaced the computation: look again
			}
			return nil, false, e.err
		}
		if e.res.commits == 0 {
			return nil, true, nil
		}
		return e.res, true, nil
	}
}

// accepted is GitHub's answer while statistics are computed.
func accepted(w http.ResponseWriter) error { return rest.JSON(w, http.StatusAccepted, struct{}{}) }

type contributorActivity struct {
	Author *wire.SimpleUser   `json:"author"`
	Total  int                `json:"total"`
	Weeks  []contributorWeeks `json:"weeks"`
}

type contributorWeeks struct {
	W int64 `json:"w"`
	A int   `json:"a"`
	D int   `json:"d"`
	C int   `json:"c"`
}

// GET /repos/{owner}/{repo}/stats/contributors
func (a *API) contributors(w http.ResponseWriter, r *http.Request) error {
	s, ready, err := a.load(r, false)
	if err != nil {
		return err
	}
	if !ready {
		return accepted(w)
	}
	if s == nil {
		return rest.NoContent(w)
	}
	out := make([]contributorActivity, 0, len(s.contributors))
	for _, c := range s.contributors {
		ca := contributorActivity{Total: c.total, Weeks: make([]contributorWeeks, len(s.weeks))}
		if c.account != nil {
			u := a.d.URLs.ToSimpleUser(c.account)
			ca.Author = &u
		}
		for i, w := range s.weeks {
			ca.Weeks[i].W = w
		}
		for _, ws := range c.weeks {
			ca.Weeks[ws.i] = contributorWeeks{W: s.weeks[ws.i], A: ws.a, D: ws.d, C: ws.c}
		}
		out = append(out, ca)
	}
	return rest.JSON(w, 200, out)
}

// GET /repos/{owner}/{repo}/stats/code_frequency
func (a *API) codeFrequency(w http.ResponseWriter, r *http.Request) error {
	s, ready, err := a.load(r, false)
	if err != nil {
		return err
	}
	if !ready {
		return accepted(w)
	}
	if s == nil {
		return rest.NoContent(w)
	}
	if !s.lines {
		return errTooManyCommits
	}
	out := make([][3]int64, len(s.weeks))
	for i, wk := range s.weeks {
		out[i] = [3]int64{wk, int64(s.added[i]), -int64(s.deleted[i])}
	}
	return rest.JSON(w, 200, out)
}

type commitActivity struct {
	Days  []int `json:"days"`
	Total int   `json:"total"`
	Week  int64 `json:"week"`
}

// GET /repos/{owner}/{repo}/stats/commit_activity: the last 52 weeks (the
// current one last), days Sunday first.
func (a *API) commitActivity(w http.ResponseWriter, r *http.Request) error {
	s, ready, err := a.load(r, false)
	if err != nil {
		return err
	}
	if !ready {
		return accepted(w)
	}
	if s == nil {
		return rest.NoContent(w)
	}
	this := weekOf(a.d.Store.Now().Unix())
	out := make([]commitActivity, yearWeeks)
	for i := range out {
		start := this - int64(yearWeeks-1-i)*week
		ca := commitActivity{Week: start, Days: make([]int, 7)}
		for d := range 7 {
			n := s.days[start/day+int64(d)]
			ca.Days[d] = n
			ca.Total += n
		}
		out[i] = ca
	}
	return rest.JSON(w, 200, out)
}

type participation struct {
	All   []int `json:"all"`
	Owner []int `json:"owner"`
}

// GET /repos/{owner}/{repo}/stats/participation: 52 weeks, oldest first,
// the last ending today at UTC midnight. GitHub's description declares no
// 202 here, so a request waits for the computation.
func (a *API) participation(w http.ResponseWriter, r *http.Request) error {
	s, _, err := a.load(r, true)
	if err != nil {
		return err
	}
	out := participation{All: make([]int, yearWeeks), Owner: make([]int, yearWeeks)}
	if s != nil {
		today := floorDiv(a.d.Store.Now().Unix(), day)
		for i := range yearWeeks {
			from := today - int64(yearWeeks-i)*7
			for d := from; d < from+7; d++ {
				out.All[i] += s.days[d]
				out.Owner[i] += s.ownerDays[d]
			}
		}
	}
	return rest.JSON(w, 200, out)
}

// GET /repos/{owner}/{repo}/stats/punch_card: [weekday, hour, commits] for
// every hour of the week, in each commit's own zone. GitHub's description
// declares no 202 here, so a request waits for the computation.
func (a *API) punchCard(w http.ResponseWriter, r *http.Request) error {
	s, _, err := a.load(r, true)
	if err != nil {
		return err
	}
	if s == nil {
		return rest.NoContent(w)
	}
	out := make([][3]int, 0, 7*24)
	for d := range 7 {
		for h := range 24 {
			out = append(out, [3]int{d, h, s.punch[d][h]})
		}
	}
	return rest.JSON(w, 200, out)
}

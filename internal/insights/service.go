package insights

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/roles"
	"github.com/hubd/hubd/internal/store"
)

// ViewPermission is the organization permission of custom organization
// roles that lets members other than owners read the organization's API
// insights ("View organization API insights").
const ViewPermission = "read_organization_api_insights"

// AppPermission is the fine-grained permission of GitHub App and
// fine-grained tokens ("API Insights", organization).
const AppPermission = "organization_api_insights"

// maxBuckets bounds the buckets of one time stats answer.
const maxBuckets = 10_000

// Service answers the statistics.
type Service struct{ Store *store.Store }

// Org is the organization named login, for a caller who may read its API
// insights: an installation on it, or an owner (or a member whose role
// holds ViewPermission) whose classic or OAuth token has read:org. Those
// who are not members see no organization; members who may not read
// insights get a 403.
func (s *Service) Org(ctx context.Context, c *authz.Caller, login string) (*model.Account, error) {
	org, err := s.Store.R().OrgByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if done, err := c.OrgToken(org.ID, "read:org"); done {
		if err != nil {
			return nil, err
		}
		return org, nil
	}
	if c.Kind == authz.FineGrained && c.ResourceOwnerID != org.ID {
		return nil, model.Forbidden("Resource not accessible by personal access token")
	}
	if c.User == nil {
		return nil, model.Forbidden("Resource not accessible by integration")
	}
	a, err := roles.New(s.Store).ActorIn(ctx, org, c.User)
	if err != nil {
		return nil, err
	}
	if a.Holds(ViewPermission) {
		return org, nil
	}
	if !a.Member() {
		return nil, model.ErrNotFound
	}
	return nil, model.Forbidden("Must be an organization owner or have the View organization API insights permission.")
}

// Window is a query's period, [From, To), From at the start of a minute.
type Window struct{ From, To time.Time }

// ParseWindow reads min_timestamp (required) and max_timestamp (now when
// empty), ISO 8601 timestamps.
func ParseWindow(minTS, maxTS string, now time.Time) (Window, error) {
	var w Window
	if minTS == "" {
		return w, model.Unprocessable("min_timestamp is required.")
	}
	var err error
	if w.From, err = parseTime(minTS); err != nil {
		return w, model.Unprocessable(fmt.Sprintf("Invalid min_timestamp '%s': expected an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ).", minTS))
	}
	// Counters are per minute: the period starts at its first minute.
	w.From = w.From.Truncate(time.Minute)
	w.To = now
	if maxTS != "" {
		if w.To, err = parseTime(maxTS); err != nil {
			return w, model.Unprocessable(fmt.Sprintf("Invalid max_timestamp '%s': expected an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ).", maxTS))
		}
	}
	if !w.From.Before(w.To) {
		return w, model.Unprocessable("min_timestamp must be before max_timestamp.")
	}
	return w, nil
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", s)
}

var incrementRE = regexp.MustCompile(`^([1-9][0-9]{0,5})([mhdw])$`)

// ParseIncrement reads timestamp_increment: a count of minutes (m), hours
// (h), days (d) or weeks (w), such as 5m, 10m, 1h, 1d.
func ParseIncrement(s string) (time.Duration, error) {
	m := incrementRE.FindStringSubmatch(s)
	if m == nil {
		if s == "" {
			return 0, model.Unprocessable("timestamp_increment is required.")
		}
		return 0, model.Unprocessable(fmt.Sprintf("Invalid timestamp_increment '%s': expected a number of minutes, hours, days or weeks (5m, 10m, 1h, 1d).", s))
	}
	n, _ := strconv.Atoi(m[1])
	unit := map[string]time.Duration{"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
	return time.Duration(n) * unit, nil
}

func (w Window) filter(org *model.Account) store.InsightFilter {
	return store.InsightFilter{OrgID: org.ID, From: w.From.Unix(), To: w.To.Unix()}
}

// Subject narrows the statistics to one user or one actor (both zero:
// the whole organization).
type Subject struct {
	UserID    int64
	ActorType string
	ActorID   int64
}

func (w Window) subjectFilter(org *model.Account, sub Subject) store.InsightFilter {
	f := w.filter(org)
	f.UserID, f.ActorType, f.ActorID = sub.UserID, sub.ActorType, sub.ActorID
	return f
}

// Summary counts the requests of the window.
func (s *Service) Summary(ctx context.Context, org *model.Account, w Window, sub Subject) (store.InsightTotals, error) {
	return s.Store.R().InsightSummary(ctx, w.subjectFilter(org, sub))
}

// Times counts the requests of the window in buckets of step aligned on
// its start, every bucket listed (those without requests at zero).
func (s *Service) Times(ctx context.Context, org *model.Account, w Window, sub Subject, step time.Duration) ([]store.InsightTotals, error) {
	from, to, sec := w.From.Unix(), w.To.Unix(), int64(step/time.Second)
	n := (to - from + sec - 1) / sec
	if n > maxBuckets {
		return nil, model.Unprocessable(fmt.Sprintf("The period holds %d increments of timestamp_increment; at most %d are answered.", n, maxBuckets))
	}
	got, err := s.Store.R().InsightTimes(ctx, w.subjectFilter(org, sub), sec)
	if err != nil {
		return nil, err
	}
	out := make([]store.InsightTotals, n)
	for i := range out {
		out[i].Start = from + int64(i)*sec
	}
	for _, t := range got {
		if i := (t.Start - from) / sec; i >= 0 && i < n {
			out[i] = t
		}
	}
	return out, nil
}

// List is a page of grouped statistics.
type List struct {
	By        store.InsightBy
	Substring string
	Sort      []string
	Desc      bool
	Limit     int
	Offset    int
}

// Groups is a page of the window's requests grouped by route, subject or
// actor, with the number of groups.
func (s *Service) Groups(ctx context.Context, org *model.Account, w Window, sub Subject, l List) ([]store.InsightGroup, int, error) {
	for _, k := range l.Sort {
		if !store.ValidInsightSort(k) {
			return nil, 0, model.Unprocessable(fmt.Sprintf("Invalid sort '%s'.", k))
		}
	}
	f := w.subjectFilter(org, sub)
	f.Substring = l.Substring
	return s.Store.R().InsightGroups(ctx, f, l.By, l.Sort, l.Desc, l.Limit, l.Offset)
}

// Package activity is the service of GitHub's activity events: an outbox
// consumer turns the domain events log into GitHub's events (PushEvent,
// IssuesEvent, ...) once, when they happen, with the actor, repository and
// organization as they were then (as on GitHub), and stores each rendered;
// reading a page of events is then one indexed query and no per-event work.
// Payloads reuse the webhook payload builder (internal/hooks), since an
// event's payload is its webhook payload without repository, organization
// and sender (PushEvent has a shape of its own).
package activity

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/bytecache"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Consumer is the service's name among the outbox consumers.
const Consumer = "activity"

// Window is how far back the event lists reach, and Cap how many events
// they list at most (GitHub: 90 days, 300 events).
const (
	Window = 90 * 24 * time.Hour
	Cap    = 300
)

// Service renders and lists activity events.
type Service struct {
	Store *store.Store
	URLs  wire.URLs
	// Render builds the webhook payloads of a batch of domain events (the
	// webhook service's NewRenderer).
	Render func() *hooks.Renderer

	consumer  *outbox.Consumer
	jobs      *jobs.Queue // runs the pruning (UseJobs)
	nextPrune time.Time
	feeds     feedKey
	entries   *bytecache.Cache[int64] // rendered Atom entries by event row id
}

// New makes the service and registers its outbox consumer, which reads the
// log from its beginning (existing activity is listed too).
func New(st *store.Store, urls wire.URLs, o *outbox.Outbox) *Service {
	s := &Service{Store: st, URLs: urls, entries: bytecache.New[int64](8<<20, 64<<10)}
	s.consumer = o.Register(Consumer, true, s.step)
	if st != nil {
		// The feed key is made (once in the database's life) at startup,
		// not on a read; on failure the first feed retries.
		s.feedKey(context.Background())
	}
	return s
}

// Start runs the consumer in the background.
func (s *Service) Start(ctx context.Context) { s.consumer.Start(ctx) }

const batch = 200

func (s *Service) step(ctx context.Context) (int, time.Duration, error) {
	if s.Render == nil {
		return 0, time.Minute, nil
	}
	s.maybePrune(ctx)
	b, err := s.consumer.Read(ctx, 0, batch)
	if err != nil || !b.Moves() {
		return 0, 0, err
	}
	r := s.Render()
	var rows []*store.ActivityEvent
	for _, e := range b.Events {
		list, err := s.convert(ctx, r, e)
		if err != nil {
			return 0, 0, err
		}
		rows = append(rows, list...)
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := b.Commit(ctx, tx); err != nil {
			return err
		}
		return tx.InsertActivityEvents(ctx, rows)
	})
	return len(b.Events), 0, err
}

// hookBody is the part of a webhook payload the event keeps apart.
type hookBody struct {
	Repository *struct {
		ID       int64  `json:"id"`
		FullName string `json:"full_name"`
		URL      string `json:"url"`
		Private  bool   `json:"private"`
	} `json:"repository"`
	Organization *struct {
		ID        int64  `json:"id"`
		Login     string `json:"login"`
		URL       string `json:"url"`
		AvatarURL string `json:"avatar_url"`
	} `json:"organization"`
	Sender *struct {
		ID         int64   `json:"id"`
		Login      string  `json:"login"`
		URL        string  `json:"url"`
		AvatarURL  string  `json:"avatar_url"`
		GravatarID *string `json:"gravatar_id"`
	} `json:"sender"`
}

// Actor is GitHub's actor object.
type Actor struct {
	ID           int64   `json:"id"`
	Login        string  `json:"login"`
	DisplayLogin string  `json:"display_login,omitempty"`
	GravatarID   *string `json:"gravatar_id"`
	URL          string  `json:"url"`
	AvatarURL    string  `json:"avatar_url"`
}

// RepoRef is an event's repo object.
type RepoRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// body is an event without its id (the row's id, known after insert).
type body struct {
	Type      string          `json:"type"`
	Actor     Actor           `json:"actor"`
	Repo      RepoRef         `json:"repo"`
	Payload   json.RawMessage `json:"payload"`
	Public    bool            `json:"public"`
	CreatedAt string          `json:"created_at"`
	Org       *Actor          `json:"org,omitempty"`
}

// kinds maps webhook events (and actions) to GitHub's event types; an
// empty action list admits every action.
var kinds = map[string]struct {
	typ     string
	actions []string
}{
	"push":                        {"PushEvent", nil},
	"create":                      {"CreateEvent", nil},
	"delete":                      {"DeleteEvent", nil},
	"issues":                      {"IssuesEvent", []string{"opened", "edited", "closed", "reopened", "assigned", "unassigned", "labeled", "unlabeled"}},
	"issue_comment":               {"IssueCommentEvent", []string{"created", "edited", "deleted"}},
	"pull_request":                {"PullRequestEvent", []string{"opened", "edited", "closed", "reopened", "assigned", "unassigned", "review_requested", "review_request_removed", "labeled", "unlabeled", "synchronize"}},
	"pull_request_review":         {"PullRequestReviewEvent", []string{"submitted", "edited", "dismissed"}},
	"pull_request_review_comment": {"PullRequestReviewCommentEvent", []string{"created"}},
	"watch":                       {"WatchEvent", nil},
	"fork":                        {"ForkEvent", nil},
	"release":                     {"ReleaseEvent", []string{"published"}},
	"member":                      {"MemberEvent", []string{"added"}},
	"commit_comment":              {"CommitCommentEvent", []string{"created"}},
	"repository":                  {"PublicEvent", []string{"publicized"}},
}

// convert renders the activity events of one domain event.
func (s *Service) convert(ctx context.Context, r *hooks.Renderer, e model.Event) ([]*store.ActivityEvent, error) {
	if e.RepoID == 0 || !relevant(e.Type) {
		return nil, nil
	}
	list, err := r.Render(ctx, e)
	if err != nil {
		return nil, err
	}
	var out []*store.ActivityEvent
	for _, h := range list {
		k, ok := kinds[h.Event]
		if !ok || len(k.actions) > 0 && !contains(k.actions, h.Action) {
			continue
		}
		var hb hookBody
		var payload map[string]json.RawMessage
		if err := json.Unmarshal(h.Body, &hb); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(h.Body, &payload); err != nil {
			return nil, err
		}
		if hb.Repository == nil || hb.Sender == nil {
			continue
		}
		for _, k := range []string{"repository", "organization", "sender", "installation", "enterprise"} {
			delete(payload, k)
		}
		switch h.Event {
		case "push":
			// A tag or a deleted branch is a CreateEvent or DeleteEvent
			// alone, as on GitHub.
			var ref string
			var deleted bool
			json.Unmarshal(payload["ref"], &ref)
			json.Unmarshal(payload["deleted"], &deleted)
			if deleted || !strings.HasPrefix(ref, "refs/heads/") {
				continue
			}
			payload = pushPayload(s.URLs, hb.Repository.ID, hb.Repository.FullName, e.ID, payload)
		case "pull_request_review":
			payload["action"] = json.RawMessage(`"created"`)
			if h.Action != "submitted" {
				payload["action"] = json.RawMessage(strconv.Quote(h.Action))
			}
		case "repository":
			payload = map[string]json.RawMessage{}
		}
		p, err := json.Marshal(payload)
		if err != nil {
			return nil, err
		}
		gravatar := ""
		b := body{Type: k.typ, Payload: p, Public: !hb.Repository.Private,
			CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339),
			Actor: Actor{ID: hb.Sender.ID, Login: hb.Sender.Login, DisplayLogin: hb.Sender.Login,
				GravatarID: &gravatar, URL: hb.Sender.URL, AvatarURL: hb.Sender.AvatarURL},
			Repo: RepoRef{ID: hb.Repository.ID, Name: hb.Repository.FullName, URL: hb.Repository.URL}}
		if o := hb.Organization; o != nil {
			b.Org = &Actor{ID: o.ID, Login: o.Login, GravatarID: &gravatar, URL: o.URL, AvatarURL: o.AvatarURL}
		}
		enc, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		out = append(out, &store.ActivityEvent{EventID: e.ID, Type: k.typ, ActorID: hb.Sender.ID, RepoID: e.RepoID,
			OrgID: e.OrgID, Public: b.Public, Body: enc, CreatedAt: e.CreatedAt})
	}
	return out, nil
}

// relevant keeps domain events that can become activity events (the others
// are not rendered at all).
func relevant(typ string) bool {
	t, _, _ := strings.Cut(typ, ".")
	switch t {
	case "push", "issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment",
		"watch", "fork", "release", "member", "commit_comment":
		return true
	case "repository":
		return typ == "repository.publicized"
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// pushPayload is PushEvent's payload from the push webhook's.
func pushPayload(urls wire.URLs, repoID int64, fullName string, pushID int64, hook map[string]json.RawMessage) map[string]json.RawMessage {
	var in struct {
		Commits []struct {
			ID      string `json:"id"`
			Message string `json:"message"`
			Author  struct {
				Name  string `json:"name"`
				Email string `json:"email"`
			} `json:"author"`
			Distinct bool `json:"distinct"`
		} `json:"commits"`
	}
	raw, _ := json.Marshal(hook)
	json.Unmarshal(raw, &in)
	type author struct {
		Email string `json:"email"`
		Name  string `json:"name"`
	}
	type commit struct {
		SHA      string `json:"sha"`
		Author   author `json:"author"`
		Message  string `json:"message"`
		Distinct bool   `json:"distinct"`
		URL      string `json:"url"`
	}
	commits := []commit{}
	distinct := 0
	for _, c := range in.Commits {
		commits = append(commits, commit{SHA: c.ID, Author: author{Email: c.Author.Email, Name: c.Author.Name},
			Message: c.Message, Distinct: c.Distinct, URL: urls.API + "/repos/" + fullName + "/commits/" + c.ID})
		if c.Distinct {
			distinct++
		}
	}
	cj, _ := json.Marshal(commits)
	n := func(v int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(v, 10)) }
	return map[string]json.RawMessage{
		"repository_id": n(repoID), "push_id": n(pushID), "size": n(int64(len(commits))),
		"distinct_size": n(int64(distinct)), "ref": hook["ref"], "head": hook["after"], "before": hook["before"],
		"commits": cj,
	}
}

// Page is a page of rendered events.
type Page struct {
	Body  []byte // a JSON array
	Total int    // capped at Cap
	Last  time.Time
}

// List renders a page of f's events (newest first) as a JSON array.
func (s *Service) List(ctx context.Context, f store.ActivityQuery, limit, offset int) (*Page, error) {
	if offset >= Cap {
		return &Page{Body: []byte("[]")}, nil
	}
	limit = min(limit, Cap-offset)
	f.Since = s.Store.R().Now().Add(-Window).Truncate(time.Minute) // a minute's pages share the read cache
	rows, total, err := s.Store.R().ListActivityEvents(ctx, f, limit, offset, Cap)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(rows) * 1024)
	buf.WriteByte('[')
	for i, r := range rows {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"id":"`)
		buf.WriteString(strconv.FormatInt(r.ID, 10))
		buf.WriteString(`",`)
		buf.Write(r.Body[1:])
	}
	buf.WriteByte(']')
	p := &Page{Body: buf.Bytes(), Total: total}
	if len(rows) > 0 {
		p.Last = rows[0].CreatedAt
	}
	return p, nil
}

// Sync consumes what the log holds now (tests).
func (s *Service) Sync(ctx context.Context) error { return s.consumer.Sync(ctx) }

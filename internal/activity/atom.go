package activity

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/store"
)

// Atom feeds: the same events as the REST lists, rendered as Atom 1.0 the
// way github.com renders its timeline and user feeds (an entry per event,
// titled like "mona pushed to main in acme/app").

// FeedSize is how many entries a page of a feed holds (GitHub: 30).
const FeedSize = 30

// Feed names a feed: its title, its own URL (self) and the page it
// mirrors (alternate).
type Feed struct {
	Title     string
	Self      string
	Alternate string
}

// AtomPage is a rendered feed page.
type AtomPage struct {
	Body    []byte
	ETag    string // quoted
	Updated time.Time
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr"`
	Href string `xml:"href,attr"`
}

type atomText struct {
	Type string `xml:"type,attr,omitempty"`
	Text string `xml:",chardata"`
}

type atomAuthor struct {
	Name string `xml:"name"`
	URI  string `xml:"uri,omitempty"`
}

type atomEntry struct {
	XMLName   xml.Name   `xml:"entry"`
	ID        string     `xml:"id"`
	Published string     `xml:"published"`
	Updated   string     `xml:"updated"`
	Link      atomLink   `xml:"link"`
	Title     atomText   `xml:"title"`
	Author    atomAuthor `xml:"author"`
	Content   atomText   `xml:"content"`
}

// host is the host name of entry and feed ids (tag URIs).
func (s *Service) host() string {
	if u, err := url.Parse(s.URLs.Web); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "localhost"
}

// entryXML is the rendered <entry> of a stored event: rendered once per
// process (a stored event never changes), kept in a bounded cache.
func (s *Service) entryXML(host string, r store.ActivityEvent) ([]byte, error) {
	if b, ok := s.entries.Get(r.ID); ok {
		return b, nil
	}
	e, err := s.entry(host, r)
	if err != nil {
		return nil, err
	}
	b, err := xml.Marshal(e)
	if err != nil {
		return nil, err
	}
	s.entries.Put(r.ID, b)
	return b, nil
}

// Atom renders page (from 1) of f's events as feed. An empty feed is
// updated at the start of the current minute, so that its ETag holds for
// a minute.
func (s *Service) Atom(ctx context.Context, f store.ActivityQuery, feed Feed, page int) (*AtomPage, error) {
	now := s.Store.R().Now().Truncate(time.Minute)
	var rows []store.ActivityEvent
	if offset := (page - 1) * FeedSize; page >= 1 && offset < Cap {
		f.Since = now.Add(-Window)
		var err error
		if rows, _, err = s.Store.R().ListActivityEvents(ctx, f, min(FeedSize, Cap-offset), offset, Cap); err != nil {
			return nil, err
		}
	}
	host := s.host()
	updated := now
	if len(rows) > 0 {
		updated = rows[0].CreatedAt
	}
	var buf bytes.Buffer
	buf.Grow(1024 + len(rows)*1024)
	buf.WriteString(xml.Header)
	buf.WriteString(`<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en-US"><id>`)
	xml.EscapeText(&buf, []byte("tag:"+host+",2008:"+feed.Alternate))
	buf.WriteString(`</id><link rel="alternate" type="text/html" href="`)
	xml.EscapeText(&buf, []byte(feed.Alternate))
	buf.WriteString(`"></link><link rel="self" type="application/atom+xml" href="`)
	xml.EscapeText(&buf, []byte(feed.Self))
	buf.WriteString(`"></link><title>`)
	xml.EscapeText(&buf, []byte(feed.Title))
	buf.WriteString(`</title><updated>` + updated.UTC().Format(time.RFC3339) + `</updated>`)
	for _, r := range rows {
		e, err := s.entryXML(host, r)
		if err != nil {
			return nil, err
		}
		buf.Write(e)
	}
	buf.WriteString("</feed>\n")
	sum := sha256.Sum256(buf.Bytes())
	return &AtomPage{Body: buf.Bytes(), ETag: `"` + hex.EncodeToString(sum[:16]) + `"`, Updated: updated}, nil
}

// stored is the part of a stored event an entry shows.
type stored struct {
	Type  string `json:"type"`
	Actor struct {
		Login string `json:"login"`
	} `json:"actor"`
	Repo struct {
		Name string `json:"name"`
	} `json:"repo"`
	Payload   storedPayload `json:"payload"`
	CreatedAt string        `json:"created_at"`
}

type storedPayload struct {
	Action  string `json:"action"`
	Ref     string `json:"ref"`
	RefType string `json:"ref_type"`
	Head    string `json:"head"`
	Before  string `json:"before"`
	Commits []struct {
		SHA     string `json:"sha"`
		Message string `json:"message"`
	} `json:"commits"`
	Issue       *htmlItem `json:"issue"`
	PullRequest *htmlItem `json:"pull_request"`
	Comment     *htmlItem `json:"comment"`
	Review      *htmlItem `json:"review"`
	Release     struct {
		TagName string `json:"tag_name"`
		Name    string `json:"name"`
		HTMLURL string `json:"html_url"`
		Body    string `json:"body"`
	} `json:"release"`
	Forkee struct {
		FullName string `json:"full_name"`
		HTMLURL  string `json:"html_url"`
	} `json:"forkee"`
	Member struct {
		Login string `json:"login"`
	} `json:"member"`
}

// htmlItem is an issue, pull request, comment or review of a payload.
type htmlItem struct {
	Number      int64           `json:"number"`
	Title       string          `json:"title"`
	Body        string          `json:"body"`
	HTMLURL     string          `json:"html_url"`
	CommitID    string          `json:"commit_id"`
	Merged      bool            `json:"merged"`
	PullRequest json.RawMessage `json:"pull_request"` // set on an issue that is a pull request
}

// entry renders one stored event.
func (s *Service) entry(host string, r store.ActivityEvent) (atomEntry, error) {
	var ev stored
	if err := json.Unmarshal(r.Body, &ev); err != nil {
		return atomEntry{}, fmt.Errorf("activity: event %d: %w", r.ID, err)
	}
	web := s.URLs.Web
	actor, repo := ev.Actor.Login, ev.Repo.Name
	title, link, content := summary(web, &ev)
	if link == "" {
		link = web + "/" + repo
	}
	when := r.CreatedAt.UTC().Format(time.RFC3339)
	return atomEntry{
		ID:        "tag:" + host + ",2008:" + ev.Type + "/" + strconv.FormatInt(r.ID, 10),
		Published: when, Updated: when,
		Link:    atomLink{Rel: "alternate", Type: "text/html", Href: link},
		Title:   atomText{Type: "html", Text: title},
		Author:  atomAuthor{Name: actor, URI: web + "/" + actor},
		Content: atomText{Type: "html", Text: content},
	}, nil
}

// summary is an event's title (as github.com words it), the page it links
// to and its html content.
func summary(web string, ev *stored) (title, link, content string) {
	p := &ev.Payload
	for _, it := range []**htmlItem{&p.Issue, &p.PullRequest, &p.Comment, &p.Review} {
		if *it == nil {
			*it = &htmlItem{}
		}
	}
	actor, repo := ev.Actor.Login, ev.Repo.Name
	ref := func(it *htmlItem) string { return repo + "#" + strconv.FormatInt(it.Number, 10) }
	text := func(s string) string { return "<p>" + html.EscapeString(s) + "</p>" }
	switch ev.Type {
	case "PushEvent":
		branch := strings.TrimPrefix(p.Ref, "refs/heads/")
		title = actor + " pushed to " + branch + " in " + repo
		if p.Before != "" && strings.Trim(p.Before, "0") != "" {
			link = web + "/" + repo + "/compare/" + short(p.Before) + "..." + short(p.Head)
		} else {
			link = web + "/" + repo + "/commit/" + p.Head
		}
		var b strings.Builder
		b.WriteString("<ul>")
		for _, c := range p.Commits {
			msg, _, _ := strings.Cut(c.Message, "\n")
			fmt.Fprintf(&b, `<li><a href="%s">%s</a> %s</li>`, html.EscapeString(web+"/"+repo+"/commit/"+c.SHA),
				short(c.SHA), html.EscapeString(msg))
		}
		b.WriteString("</ul>")
		content = b.String()
	case "CreateEvent":
		if p.RefType == "repository" {
			title = actor + " created a repository " + repo
		} else {
			title = actor + " created a " + p.RefType + " " + p.Ref + " in " + repo
			if p.RefType == "tag" {
				link = web + "/" + repo + "/tree/" + url.PathEscape(p.Ref)
			}
		}
	case "DeleteEvent":
		title = actor + " deleted " + p.RefType + " " + p.Ref + " at " + repo
	case "IssuesEvent":
		title, link, content = actor+" "+p.Action+" issue "+ref(p.Issue), p.Issue.HTMLURL, text(p.Issue.Title)
	case "IssueCommentEvent":
		kind := "issue"
		if len(p.Issue.PullRequest) > 0 && string(p.Issue.PullRequest) != "null" {
			kind = "pull request"
		}
		title, link = actor+" commented on "+kind+" "+ref(p.Issue), p.Comment.HTMLURL
		content = text(p.Comment.Body)
	case "PullRequestEvent":
		action := p.Action
		if action == "closed" && p.PullRequest.Merged {
			action = "merged"
		}
		title, link, content = actor+" "+action+" pull request "+ref(p.PullRequest), p.PullRequest.HTMLURL, text(p.PullRequest.Title)
	case "PullRequestReviewEvent":
		title, link = actor+" reviewed pull request "+ref(p.PullRequest), p.Review.HTMLURL
		content = text(p.Review.Body)
	case "PullRequestReviewCommentEvent":
		title, link = actor+" commented on pull request "+ref(p.PullRequest), p.Comment.HTMLURL
		content = text(p.Comment.Body)
	case "CommitCommentEvent":
		title, link = actor+" commented on commit "+repo+"@"+short(p.Comment.CommitID), p.Comment.HTMLURL
		content = text(p.Comment.Body)
	case "WatchEvent":
		title = actor + " starred " + repo
	case "ForkEvent":
		title, link = actor+" forked "+repo+" to "+p.Forkee.FullName, p.Forkee.HTMLURL
	case "ReleaseEvent":
		title, link = actor+" released "+p.Release.TagName+" at "+repo, p.Release.HTMLURL
		content = text(p.Release.Name)
	case "MemberEvent":
		title = actor + " added " + p.Member.Login + " to " + repo
	case "PublicEvent":
		title = actor + " made " + repo + " public"
	default:
		title = actor + " " + strings.TrimSuffix(ev.Type, "Event") + " in " + repo
	}
	if content == "" {
		content = text(title)
	}
	return title, link, content
}

// short is a commit's abbreviated name.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

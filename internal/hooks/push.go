package hooks

import (
	"context"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// maxPushCommits is how many commits a push payload lists (GitHub's
// limit; the oldest are dropped).
const maxPushCommits = 20

type pushPerson struct {
	Name     string  `json:"name"`
	Email    *string `json:"email"`
	Username string  `json:"username,omitempty"`
	Date     string  `json:"date,omitempty"`
}

type pushCommit struct {
	ID        string     `json:"id"`
	TreeID    string     `json:"tree_id"`
	Distinct  bool       `json:"distinct"`
	Message   string     `json:"message"`
	Timestamp string     `json:"timestamp"`
	URL       string     `json:"url"`
	Author    pushPerson `json:"author"`
	Committer pushPerson `json:"committer"`
	Added     []string   `json:"added"`
	Removed   []string   `json:"removed"`
	Modified  []string   `json:"modified"`
}

func person(s gitrepo.Signature) pushPerson {
	email := s.Email
	return pushPerson{Name: s.Name, Email: &email, Date: s.When.Format(time.RFC3339)}
}

// pushRepository is the repository object of push payloads: GitHub gives
// its times as Unix seconds there, with stargazers, master_branch and the
// owning organization's login.
func (b *builder) pushRepository(repo *model.Repo) map[string]any {
	obj := make(map[string]any, len(b.repoJSON[repo.ID])+3)
	for k, v := range b.repoJSON[repo.ID] {
		obj[k] = v
	}
	obj["created_at"] = repo.CreatedAt.Unix()
	if repo.PushedAt != nil {
		obj["pushed_at"] = repo.PushedAt.Unix()
	}
	obj["stargazers"] = repo.StargazersCount
	obj["master_branch"] = repo.DefaultBranch
	if repo.Owner.IsOrg() {
		obj["organization"] = repo.Owner.Login
	} else {
		delete(obj, "organization")
	}
	return obj
}

// push fills the payload of a push: the commits it brought (up to 20),
// the head commit, who pushed and the compare URL.
func (b *builder) push(ctx context.Context, repo *model.Repo, sender *model.Account, d domain, out map[string]any) error {
	ref, before, after := d.str("ref"), d.str("before"), d.str("after")
	created, deleted := d.bool("created"), d.bool("deleted")
	out["ref"], out["before"], out["after"] = ref, before, after
	out["created"], out["deleted"], out["base_ref"] = created, deleted, nil
	out["repository"] = b.pushRepository(repo)
	email := sender.Email
	if email == "" {
		email = b.s.URLs.CommitEmail(sender)
	}
	out["pusher"] = pushPerson{Name: sender.Login, Email: &email}
	short := func(s string) string { return s[:min(12, len(s))] }
	html := b.s.URLs.RepoHTMLURL(repo)
	switch {
	case created:
		out["compare"] = html + "/compare/" + strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
	default:
		out["compare"] = html + "/compare/" + short(before) + "..." + short(after)
	}
	commits := []pushCommit{}
	out["commits"], out["head_commit"], out["forced"] = commits, nil, false
	if deleted || b.s.Git == nil {
		return nil
	}
	g := b.s.Git.Open(repo.ID)
	// Commits new to the ref: those after has and before had not; for a
	// new ref, those no other branch had.
	var exclude []string
	if !created {
		exclude = []string{before}
		if ok, err := g.IsAncestor(ctx, before, after); err == nil && !ok {
			out["forced"] = true
		}
	} else {
		heads, err := g.Refs(ctx, "refs/heads/")
		if err != nil {
			return err
		}
		for _, h := range heads {
			if h.Name != ref && h.OID != after {
				exclude = append(exclude, h.OID)
			}
		}
	}
	ids, _, err := g.RevList(ctx, gitrepo.LogOptions{Include: []string{after}, Exclude: exclude, Max: maxPushCommits})
	if err != nil {
		return skip("push %s..%s: %v", short(before), short(after), err)
	}
	// rev-list gives the newest first; the payload lists the oldest first.
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	list, err := g.Commits(ctx, ids)
	if err != nil {
		return err
	}
	for _, c := range list {
		pc, err := b.pushCommit(ctx, g, repo, c)
		if err != nil {
			return err
		}
		commits = append(commits, pc)
	}
	out["commits"] = commits
	if head, err := g.Commit(ctx, after); err == nil && gitrepo.ValidOID(after) {
		hc, err := b.pushCommit(ctx, g, repo, head)
		if err != nil {
			return err
		}
		hc.Distinct = len(ids) > 0 && ids[len(ids)-1] == after
		out["head_commit"] = hc
	}
	return nil
}

func (b *builder) pushCommit(ctx context.Context, g *gitrepo.Repo, repo *model.Repo, c *gitrepo.Commit) (pushCommit, error) {
	pc := pushCommit{ID: c.OID, TreeID: c.Tree, Distinct: true, Message: strings.TrimSuffix(c.Message, "\n"),
		Timestamp: c.Author.When.Format(time.RFC3339), URL: b.s.URLs.CommitHTMLURL(repo, c.OID),
		Author: person(c.Author), Committer: person(c.Committer), Added: []string{}, Removed: []string{}, Modified: []string{}}
	parent := gitrepo.EmptyTree
	if len(c.Parents) > 0 {
		parent = c.Parents[0]
	}
	files, err := g.DiffStats(ctx, parent, c.OID)
	if err != nil {
		return pc, err
	}
	for _, f := range files {
		switch f.Status {
		case "added", "copied":
			pc.Added = append(pc.Added, f.Path)
		case "removed":
			pc.Removed = append(pc.Removed, f.Path)
		case "renamed":
			pc.Removed = append(pc.Removed, f.OldPath)
			pc.Added = append(pc.Added, f.Path)
		default:
			pc.Modified = append(pc.Modified, f.Path)
		}
	}
	return pc, nil
}

// refEvent fills a create or delete payload (a branch or tag made or
// removed by a push).
func (b *builder) refEvent(event string, repo *model.Repo, d domain, out map[string]any) error {
	ref := d.str("ref")
	refType, name := "branch", strings.TrimPrefix(ref, "refs/heads/")
	if t, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		refType, name = "tag", t
	}
	out["ref"], out["ref_type"], out["pusher_type"] = name, refType, "user"
	if event == "create" {
		out["master_branch"] = repo.DefaultBranch
		out["description"] = wireDescription(repo)
	}
	return nil
}

func wireDescription(r *model.Repo) *string {
	if r.Description == "" {
		return nil
	}
	s := r.Description
	return &s
}

package migrations

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/store"
)

// Import reads the archive at path and writes its repositories.
func (s *Service) Import(ctx context.Context, path string, opt ImportOptions) (*ImportReport, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(s.Dir, "import-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	u, err := unpack(path, work)
	if err != nil {
		return nil, model.Custom("Migration", "archive", err.Error())
	}
	switch opt.UnknownUsers {
	case "", UnknownReport, UnknownGhost, UnknownCreate:
	default:
		return nil, model.Custom("Migration", "unknown_users", "unknown_users must be report, ghost or create")
	}
	im := &importer{s: s, u: u, opt: opt, users: map[string]int64{},
		report: &ImportReport{Conflicts: []Conflict{}, Repositories: []ImportedRepo{}, CreatedUsers: []string{}}}
	if err := im.mapUsers(ctx); err != nil {
		return nil, err
	}
	type planned struct {
		rec   arRepo
		owner *model.Account
		name  string
	}
	var plan []planned
	if err := checkPaths(u); err != nil {
		return nil, model.Custom("Migration", "archive", err.Error())
	}
	for _, rec := range u.repos {
		owner, name, err := im.target(ctx, rec)
		if err != nil {
			return nil, err
		}
		if owner != nil {
			plan = append(plan, planned{rec, owner, name})
		}
	}
	if opt.DryRun {
		return im.report, nil
	}
	for _, p := range plan {
		if err := im.repository(ctx, p.rec, p.owner, p.name); err != nil {
			return im.report, fmt.Errorf("import %s: %w", p.rec.URL, err)
		}
	}
	return im.report, nil
}

type importer struct {
	pulls  []*model.Pull // of the repository being imported, for their figures
	s      *Service
	u      *unpacked
	opt    ImportOptions
	users  map[string]int64 // source user URL → local account id (0: unknown)
	report *ImportReport
}

func (im *importer) conflict(c Conflict) { im.report.Conflicts = append(im.report.Conflicts, c) }

// lastSegments is the last n path segments of a URL (or the value itself
// when it has fewer).
func lastSegments(v string, n int) string {
	parts := strings.Split(strings.TrimSuffix(v, "/"), "/")
	if len(parts) < n {
		return v
	}
	return strings.Join(parts[len(parts)-n:], "/")
}

// mapUsers resolves every user of the archive.
func (im *importer) mapUsers(ctx context.Context) error {
	q := im.s.Store.R()
	for _, au := range im.u.users {
		target := au.Login
		if t, ok := im.opt.Mapping[au.URL]; ok {
			target = lastSegments(t, 1)
		} else if t, ok := im.opt.Mapping[au.Login]; ok {
			target = lastSegments(t, 1)
		}
		acct, err := q.AccountByLogin(ctx, target)
		if err == nil && !acct.IsOrg() {
			im.users[au.URL] = acct.ID
			im.report.MappedUsers++
			continue
		}
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return err
		}
		found := false
		for _, e := range au.Emails {
			if !e.Primary || e.Address == "" {
				continue
			}
			acct, err := q.UserByEmail(ctx, e.Address)
			if err == nil {
				im.users[au.URL] = acct.ID
				im.report.MappedUsers++
				found = true
			} else if !errors.Is(err, model.ErrNotFound) {
				return err
			}
		}
		if !found {
			if err := im.unknownUser(ctx, au); err != nil {
				return err
			}
		}
	}
	return nil
}

func (im *importer) user(url string) int64 { return im.users[url] }

// target is where a repository of the archive goes: its owner (nil when
// in conflict) and name.
func (im *importer) target(ctx context.Context, rec arRepo) (*model.Account, string, error) {
	q := im.s.Store.R()
	ownerLogin, name := lastSegments(rec.Owner, 1), rec.Name
	if t, ok := im.opt.Mapping[rec.Owner]; ok {
		ownerLogin = lastSegments(t, 1)
	}
	if t, ok := im.opt.Mapping[rec.URL]; ok {
		full := lastSegments(t, 2)
		if o, n, ok := strings.Cut(full, "/"); ok {
			ownerLogin, name = o, n
		}
	}
	owner, err := q.AccountByLogin(ctx, ownerLogin)
	if errors.Is(err, model.ErrNotFound) {
		kind := "user"
		if strings.Contains(rec.Owner, "/orgs/") || im.isOrg(rec.Owner) {
			kind = "organization"
		}
		im.conflict(Conflict{ModelName: kind, SourceURL: rec.Owner, TargetURL: rec.Owner, RecommendedAction: "map",
			Notes: "no account " + ownerLogin + " here to own " + rec.Name})
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	found, err := q.ReposOfAccountByName(ctx, owner.ID, []string{name})
	if err != nil {
		return nil, "", err
	}
	if _, taken := found[strings.ToLower(name)]; taken {
		im.conflict(Conflict{ModelName: "repository", SourceURL: rec.URL, TargetURL: im.s.URLs.Web + "/" + owner.Login + "/" + name,
			RecommendedAction: "rename", Notes: "a repository of that name exists"})
		return nil, "", nil
	}
	return owner, name, nil
}

func (im *importer) isOrg(url string) bool {
	for _, o := range im.u.organization {
		if o.URL == url {
			return true
		}
	}
	return false
}

// numberOf is the number at the end of an issue, pull request or
// milestone URL (0 when there is none).
func numberOf(url string) int64 {
	if i := strings.IndexAny(url, "#?"); i >= 0 {
		url = url[:i]
	}
	n, _ := strconv.ParseInt(lastSegments(url, 1), 10, 64)
	return n
}

// fragmentID is the id after the last '-' or 'r' of a URL's fragment
// (#issuecomment-12, #r34, #pullrequestreview-5).
func fragmentID(url string) string {
	_, frag, ok := strings.Cut(url, "#")
	if !ok {
		return ""
	}
	return frag
}

// repository writes one repository with its records in a transaction,
// then its git data.
func (im *importer) repository(ctx context.Context, rec arRepo, owner *model.Account, name string) error {
	u := im.u
	repo := &model.Repo{OwnerID: owner.ID, Owner: owner, Name: name, Description: rec.Description, Homepage: rec.Website,
		Visibility: model.Public, DefaultBranch: rec.DefaultBranch, HasIssues: rec.HasIssues, HasWiki: rec.HasWiki,
		HasDownloads: rec.HasDownloads, HasProjects: true, AllowSquashMerge: true, AllowMergeCommit: true, AllowRebaseMerge: true,
		AllowForking: true, SquashMergeCommitTitle: "COMMIT_OR_PR_TITLE", SquashMergeCommitMessage: "COMMIT_MESSAGES",
		MergeCommitTitle: "MERGE_MESSAGE", MergeCommitMessage: "PR_TITLE"}
	if rec.Private {
		repo.Visibility = model.Private
	}
	orgID := int64(0)
	if owner.IsOrg() {
		orgID = owner.ID
	}
	of := func(parent string) bool { return parent == rec.URL }
	var milestones []arMilestone
	for _, m := range u.milestones {
		if of(m.Repository) {
			milestones = append(milestones, m)
		}
	}
	sort.Slice(milestones, func(i, j int) bool { return numberOf(milestones[i].URL) < numberOf(milestones[j].URL) })
	var issues []arIssue
	for _, is := range u.issues {
		if of(is.Repository) {
			issues = append(issues, is)
		}
	}
	sort.Slice(issues, func(i, j int) bool { return numberOf(issues[i].URL) < numberOf(issues[j].URL) })
	prefix := rec.URL + "/"
	inRepo := func(url string) bool { return strings.HasPrefix(url, prefix) }
	out := ImportedRepo{SourceURL: rec.URL, FullName: owner.Login + "/" + name}
	im.pulls = nil
	var assets []pendingAsset
	err := im.s.Store.Tx(ctx, func(tx store.Q) error {
		assets = nil
		if err := tx.At(rec.CreatedAt).CreateRepo(ctx, repo); err != nil {
			return err
		}
		for _, l := range rec.Labels {
			at := rec.CreatedAt
			if l.CreatedAt != nil {
				at = *l.CreatedAt
			}
			if err := tx.At(at).CreateLabel(ctx, &model.Label{RepoID: repo.ID, Name: l.Name, Color: l.Color, Description: l.Description}); err != nil {
				return fmt.Errorf("label %q: %w", l.Name, err)
			}
		}
		msByURL := map[string]*model.Milestone{}
		for _, m := range milestones {
			ms := &model.Milestone{RepoID: repo.ID, Title: m.Title, Description: m.Description, State: m.State, DueOn: m.DueOn,
				CreatorID: im.user(m.User)}
			if ms.State == "" {
				ms.State = "open"
			}
			// GitHub's number is kept: the repository is new, so only an
			// archive repeating a number conflicts (and fails the repository).
			n := numberOf(m.URL)
			if n > 0 {
				if err := tx.ReserveMilestoneNumbers(ctx, repo.ID, n); err != nil {
					return err
				}
			}
			if err := tx.At(m.CreatedAt).CreateMilestone(ctx, ms); err != nil {
				return fmt.Errorf("milestone %q: %w", m.Title, err)
			}
			if n > 0 && ms.Number != n {
				return fmt.Errorf("milestone %q numbered %d, not %d (the archive repeats a number)", m.Title, ms.Number, n)
			}
			if ms.State == "closed" && m.ClosedAt != nil {
				ms.ClosedAt = m.ClosedAt
				if err := tx.At(*m.ClosedAt).UpdateMilestone(ctx, ms); err != nil {
					return err
				}
			}
			msByURL[m.URL] = ms
		}
		byURL := map[string]*model.Issue{} // issue and pull request URLs
		for _, a := range issues {
			is, err := im.issue(ctx, tx, repo, orgID, a, msByURL)
			if err != nil {
				return fmt.Errorf("%s: %w", a.URL, err)
			}
			byURL[a.URL] = is
			if is.IsPull {
				out.Pulls++
			} else {
				out.Issues++
			}
		}
		parent := func(issue, pull string) *model.Issue {
			if pull != "" {
				return byURL[pull]
			}
			return byURL[issue]
		}
		reviews := map[string]int64{}
		for _, st := range timeline(u, inRepo) {
			switch {
			case st.comment != nil:
				c := st.comment
				is := parent(c.Issue, c.PullRequest)
				if is == nil {
					continue
				}
				at := tx.At(c.CreatedAt)
				cm := &model.IssueComment{RepoID: repo.ID, IssueID: is.ID, IssueNumber: is.Number, UserID: im.user(c.User), Body: c.Body}
				if err := at.CreateComment(ctx, cm); err != nil {
					return err
				}
				if err := im.react(ctx, tx, repo.ID, store.ReactComment, cm.ID, c.Reactions); err != nil {
					return err
				}
				if err := at.AddIssueEvent(ctx, &model.IssueEvent{RepoID: repo.ID, IssueID: is.ID, ActorID: cm.UserID, Event: "commented",
					SubjectID: cm.ID}, orgID, map[string]any{"comment_id": cm.ID, "imported": true}); err != nil {
					return err
				}
			case st.review != nil:
				v := st.review
				is := byURL[v.PullRequest]
				state := strings.ToUpper(v.State)
				if is == nil || state == "" || state == model.ReviewPending {
					continue
				}
				at := v.CreatedAt
				if v.SubmittedAt != nil {
					at = *v.SubmittedAt
				}
				pr := &model.PullReview{RepoID: repo.ID, PullID: is.ID, UserID: im.user(v.User), Body: v.Body, State: state, CommitID: v.HeadSHA}
				q := tx.At(at)
				if err := q.CreatePullReview(ctx, pr); err != nil {
					return err
				}
				if err := q.AddIssueEvent(ctx, &model.IssueEvent{RepoID: repo.ID, IssueID: is.ID, ActorID: pr.UserID, Event: "reviewed",
					SubjectID: pr.ID}, orgID, map[string]any{"review_id": pr.ID, "imported": true}); err != nil {
					return err
				}
				reviews[fragmentID(v.URL)] = pr.ID
			default:
				e := st.event
				is := parent(e.Issue, e.PullRequest)
				if is == nil || e.Event == "" {
					continue
				}
				ev := &model.IssueEvent{RepoID: repo.ID, IssueID: is.ID, ActorID: im.user(e.Actor), Event: e.Event, CommitID: e.CommitID,
					LabelName: e.LabelName, LabelColor: e.LabelColor, Milestone: e.MilestoneTitle, RenameFrom: e.TitleWas, RenameTo: e.TitleIs}
				if e.Subject != "" {
					ev.AssigneeID = im.user(e.Subject)
				}
				if err := tx.At(e.CreatedAt).AddIssueEvent(ctx, ev, orgID, map[string]any{"imported": true}); err != nil {
					return err
				}
			}
		}
		comments := map[string]int64{}
		for _, c := range u.reviewCmts {
			is := byURL[c.PullRequest]
			if is == nil || !inRepo(c.PullRequest) {
				continue
			}
			rid := reviews[fragmentID(c.Review)]
			if rid == 0 {
				// A comment of a review the archive lacks: a review of its own.
				pr := &model.PullReview{RepoID: repo.ID, PullID: is.ID, UserID: im.user(c.User), State: model.ReviewCommented, CommitID: c.CommitID}
				if err := tx.At(c.CreatedAt).CreatePullReview(ctx, pr); err != nil {
					return err
				}
				rid = pr.ID
				reviews[fragmentID(c.Review)] = rid
			}
			side := "RIGHT"
			rc := &model.PullReviewComment{RepoID: repo.ID, PullID: is.ID, ReviewID: rid, InReplyToID: comments[fragmentID(c.InReplyTo)],
				UserID: im.user(c.User), Body: c.Body, Path: c.Path, CommitID: c.CommitID, OriginalCommitID: c.OriginalCommitID,
				DiffHunk: c.DiffHunk, Position: c.Position, OriginalPosition: c.OriginalPosition, Side: &side, SubjectType: "line"}
			if rc.OriginalCommitID == "" {
				rc.OriginalCommitID = rc.CommitID
			}
			if err := tx.At(c.CreatedAt).CreatePullReviewComment(ctx, rc); err != nil {
				return err
			}
			if err := im.react(ctx, tx, repo.ID, store.ReactPullReviewComment, rc.ID, c.Reactions); err != nil {
				return err
			}
			if err := tx.AddPullReviewComments(ctx, is.ID, 1); err != nil {
				return err
			}
			comments[fragmentID(c.URL)] = rc.ID
		}
		for _, r := range u.releases {
			if !of(r.Repository) {
				continue
			}
			rel := &model.Release{RepoID: repo.ID, TagName: r.TagName, TargetCommitish: r.TargetCommitish, Name: r.Name, Body: r.Body,
				Draft: r.State == "draft", Prerelease: r.Prerelease, AuthorID: im.user(r.User), CreatedAt: r.CreatedAt,
				PublishedAt: r.PublishedAt, UpdatedAt: r.CreatedAt}
			if r.PublishedAt != nil {
				rel.UpdatedAt = *r.PublishedAt
			}
			if rel.Draft {
				rel.DraftKey = "untagged-" + strconv.FormatInt(time.Now().UnixNano(), 36)
				rel.PublishedAt = nil
			}
			if err := tx.CreateRelease(ctx, rel); err != nil {
				return fmt.Errorf("release %q: %w", r.TagName, err)
			}
			if err := im.react(ctx, tx, repo.ID, store.ReactRelease, rel.ID, r.Reactions); err != nil {
				return err
			}
			for _, as := range r.Assets {
				assets = append(assets, pendingAsset{releaseID: rel.ID, rec: as})
			}
		}
		if err := im.commitComments(ctx, tx, repo, rec.URL); err != nil {
			return err
		}
		if err := im.collaborators(ctx, tx, repo, orgID, rec); err != nil {
			return err
		}
		if owner.IsOrg() {
			if err := im.teamGrants(ctx, tx, repo, owner, rec); err != nil {
				return err
			}
		}
		for _, p := range u.protections {
			if p.RepositoryURL != rec.URL {
				continue
			}
			bp := &model.BranchProtection{RepoID: repo.ID, Branch: p.Name, EnforceAdmins: p.AdminEnforced,
				StatusChecks: p.StatusChecksLevel != "" && p.StatusChecksLevel != "off", Strict: p.Strict, RequiredContexts: p.StatusChecks,
				Reviews: p.ReviewsLevel != "" && p.ReviewsLevel != "off", RequiredApprovals: p.RequiredApprovals,
				DismissStaleReviews: p.DismissStale, RequireCodeOwnerReviews: p.RequireCodeOwner,
				AllowForcePushes: p.ForcePushesLevel == "off", AllowDeletions: p.DeletionsLevel == "off"}
			if err := tx.PutBranchProtection(ctx, bp); err != nil {
				return err
			}
		}
		if err := tx.AppendEvent(ctx, "repository.created", im.opt.ActorID, repo.ID, orgID, map[string]any{
			"action": "created", "repository_id": repo.ID, "full_name": repo.FullName(), "visibility": repo.Visibility,
			"imported_from": rec.URL,
		}); err != nil {
			return err
		}
		// Webhooks come last, after the import's own events, and inactive:
		// the archive has no secrets, and an administrator turns each on
		// once it has one.
		for _, h := range rec.Hooks {
			hook := &model.Hook{RepoID: repo.ID, Name: "web", Active: false, Events: h.Events, URL: h.URL, ContentType: h.ContentType,
				InsecureSSL: h.InsecureSSL, CreatorID: im.opt.ActorID}
			if hook.ContentType == "" {
				hook.ContentType = "form"
			}
			if hook.InsecureSSL == "" {
				hook.InsecureSSL = "0"
			}
			if len(hook.Events) == 0 {
				hook.Events = []string{"push"}
			}
			if err := tx.CreateHook(ctx, hook); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	out.ID = repo.ID
	if err := im.assets(ctx, repo, assets); err != nil {
		return err
	}
	// Git data after the rows: a failure leaves the repository empty (and
	// reported), never rows half-written.
	if strings.HasPrefix(rec.GitURL, "tarball://root/") {
		src := filepath.Join(u.dir, filepath.FromSlash(strings.TrimPrefix(rec.GitURL, "tarball://root/")))
		if !strings.HasPrefix(src, u.dir+string(filepath.Separator)) {
			return fmt.Errorf("git data: %s is outside the archive", rec.GitURL)
		}
		if _, err := os.Stat(filepath.Join(src, "HEAD")); err == nil {
			// Archivers may leave out a bare repository's empty directories.
			for _, d := range []string{"refs", "objects"} {
				if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
					return err
				}
			}
			if err := im.s.Git.Adopt(ctx, repo.ID, src, repo.DefaultBranch); err != nil {
				return fmt.Errorf("git data: %w", err)
			}
			if err := im.figures(ctx, repo); err != nil {
				return fmt.Errorf("pull request figures: %w", err)
			}
		}
	}
	im.report.Repositories = append(im.report.Repositories, out)
	return nil
}

// issue writes an issue or pull request of the archive with its number.
func (im *importer) issue(ctx context.Context, tx store.Q, repo *model.Repo, orgID int64, a arIssue, ms map[string]*model.Milestone) (*model.Issue, error) {
	n := numberOf(a.URL)
	if n <= 0 {
		return nil, errors.New("no issue number in its url")
	}
	if err := tx.ReserveIssueNumbers(ctx, repo.ID, n); err != nil {
		return nil, err
	}
	is := &model.Issue{RepoID: repo.ID, IsPull: a.Type == "pull_request", Title: a.Title, Body: a.Body, UserID: im.user(a.User),
		State: "open", CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, Locked: a.Locked}
	if a.Locked {
		is.LockReason = a.LockReason
	}
	if a.ClosedAt != nil {
		is.State, is.ClosedAt = "closed", a.ClosedAt
	}
	if m := ms[a.Milestone]; m != nil {
		is.MilestoneID = m.ID
	}
	at := tx.At(a.CreatedAt)
	if err := at.CreateIssue(ctx, is); err != nil {
		return nil, err
	}
	if is.Number != n {
		return nil, fmt.Errorf("numbered %d, not %d (the archive repeats a number)", is.Number, n)
	}
	if err := im.react(ctx, tx, repo.ID, store.ReactIssue, is.ID, a.Reactions); err != nil {
		return nil, err
	}
	if len(a.Labels) > 0 {
		names := make([]string, len(a.Labels))
		for i, l := range a.Labels {
			names[i] = lastSegments(l, 1)
			if un, err := url.PathUnescape(names[i]); err == nil {
				names[i] = un
			}
		}
		found, err := tx.LabelsByName(ctx, repo.ID, names)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			if l := found[strings.ToLower(name)]; l != nil {
				if _, err := at.AddIssueLabel(ctx, is.ID, l.ID); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, as := range a.Assignees {
		if id := im.user(as); id != 0 {
			if _, err := at.AddIssueAssignee(ctx, is.ID, id); err != nil {
				return nil, err
			}
		}
	}
	if !is.IsPull {
		return is, nil
	}
	p := &model.Pull{Issue: is, Draft: a.Draft}
	if a.Base != nil {
		p.BaseRef, p.BaseSHA = a.Base.Ref, a.Base.SHA
	}
	if a.Head != nil {
		p.HeadRef, p.HeadSHA = a.Head.Ref, a.Head.SHA
		if a.Head.Repo == a.Repository {
			p.HeadRepoID, p.HeadOwnerID = repo.ID, repo.OwnerID
		}
	}
	if err := at.CreatePull(ctx, p); err != nil {
		return nil, err
	}
	im.pulls = append(im.pulls, p)
	if a.MergedAt != nil {
		sha := ""
		if a.MergeCommitSHA != nil {
			sha = *a.MergeCommitSHA
		}
		if err := tx.MarkPullMerged(ctx, is.ID, im.user(a.MergedBy), sha, p.HeadSHA, p.BaseSHA, *a.MergedAt); err != nil {
			return nil, err
		}
	}
	return is, nil
}

// step is one entry of an issue timeline replayed by the import.
type step struct {
	at      time.Time
	comment *arComment
	review  *arReview
	event   *arEvent
}

// timeline orders a repository's comments, reviews and events as they
// happened: the archive's events in their order, each "commented" or
// "reviewed" one standing for the comment or review it names; comments and
// reviews no event names (archives of other exporters) are merged in by
// time.
func timeline(u *unpacked, inRepo func(string) bool) []step {
	comments := map[string]*arComment{}
	for i := range u.comments {
		c := &u.comments[i]
		if inRepo(c.Issue + c.PullRequest) {
			comments[c.URL] = c
		}
	}
	reviews := map[string]*arReview{}
	for i := range u.reviews {
		v := &u.reviews[i]
		if inRepo(v.PullRequest) {
			reviews[fragmentID(v.URL)] = v
		}
	}
	used := map[any]bool{}
	var steps []step
	for i := range u.events {
		e := &u.events[i]
		if !inRepo(e.Issue + e.PullRequest) {
			continue
		}
		switch {
		case e.Event == "commented":
			if c := comments[e.Comment]; c != nil && !used[c] {
				used[c] = true
				steps = append(steps, step{at: c.CreatedAt, comment: c})
			}
		case e.Event == "reviewed":
			if v := reviews[fragmentID(e.Review)]; v != nil && !used[v] {
				used[v] = true
				steps = append(steps, step{at: e.CreatedAt, review: v})
			}
		default:
			steps = append(steps, step{at: e.CreatedAt, event: e})
		}
	}
	var rest []step
	for i := range u.comments {
		if c := &u.comments[i]; comments[c.URL] == c && !used[c] {
			rest = append(rest, step{at: c.CreatedAt, comment: c})
		}
	}
	for i := range u.reviews {
		if v := &u.reviews[i]; reviews[fragmentID(v.URL)] == v && !used[v] {
			at := v.CreatedAt
			if v.SubmittedAt != nil {
				at = *v.SubmittedAt
			}
			rest = append(rest, step{at: at, review: v})
		}
	}
	if len(rest) == 0 {
		return steps
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].at.Before(rest[j].at) })
	out := make([]step, 0, len(steps)+len(rest))
	i, j := 0, 0
	for i < len(steps) || j < len(rest) {
		if j == len(rest) || i < len(steps) && !rest[j].at.Before(steps[i].at) {
			out = append(out, steps[i])
			i++
		} else {
			out = append(out, rest[j])
			j++
		}
	}
	return out
}

// figures counts the commits and changes of the repository's imported pull
// requests, now that their commits are in place.
func (im *importer) figures(ctx context.Context, repo *model.Repo) error {
	if len(im.pulls) == 0 {
		return nil
	}
	g := im.s.Git.Open(repo.ID)
	counts := make([]store.PullCounts, len(im.pulls))
	for i, p := range im.pulls {
		if p.BaseSHA == "" || p.HeadSHA == "" {
			continue
		}
		c, err := pulls.Figures(ctx, g, p.BaseSHA, p.HeadSHA)
		if err != nil {
			continue // a commit the archive lacks: the figures stay 0
		}
		counts[i] = c
	}
	return im.s.Store.Tx(ctx, func(tx store.Q) error {
		bases := map[string]bool{}
		for i, p := range im.pulls {
			if _, err := tx.SetPullHead(ctx, p.IssueID, p.HeadSHA, p.BaseSHA, p.HeadSHA, p.BaseSHA, counts[i]); err != nil {
				return err
			}
			if p.Issue.State == "open" {
				bases[p.BaseRef] = true
			}
		}
		// The open ones get the background sync every pull request gets
		// when its base's rules change: mergeability, checks, protection.
		for b := range bases {
			if err := pulls.RulesChanged(ctx, tx, repo.ID, b); err != nil {
				return err
			}
		}
		return nil
	})
}

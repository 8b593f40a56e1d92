// Package pullbench holds the pull request benchmarks (pullbench_test.go,
// run by bench/pulls.sh) and the bulk seeding that bench/pullseed and the
// benchmarks share.
package pullbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// headInfo is one pushed head branch and the figures of base...head,
// counted once and shared by the pull requests at that commit.
type headInfo struct {
	sha                                         string
	commits, additions, deletions, changedFiles int
}

// Git runs git in dir.
func Git(dir string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// SeedPulls opens n pull requests into baseRef of repo (whose git storage
// is gitDir) straight through the store. Every other branch of the
// repository is a head; pull request N gets its own branch refs/heads/pr/N
// and refs/pull/N/head at the commit of one of them, so the rows point at
// real branches and commits. Issue halves are inserted in bulk
// (store.SeedIssues with IsPull: labels, assignees, milestones like
// issueseed's), pull halves with tx.CreatePull, batch rows a transaction.
// The refs go straight into packed-refs: 20,000 loose refs through `git
// update-ref --stdin` then `git pack-refs` take 15 s on a slow disk.
// It returns how many head commits the pull requests share.
func SeedPulls(ctx context.Context, st *store.Store, repo *model.Repo, gitDir, baseRef string, n, batch int) (int, error) {
	baseSHA, err := Git(gitDir, nil, "rev-parse", "--verify", "refs/heads/"+baseRef+"^{commit}")
	if err != nil {
		return 0, err
	}
	list, err := Git(gitDir, nil, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/")
	if err != nil {
		return 0, err
	}
	var heads []headInfo
	for _, line := range strings.Split(list, "\n") {
		sha, ref, _ := strings.Cut(line, " ")
		if ref == "" || ref == "refs/heads/"+baseRef || strings.HasPrefix(ref, "refs/heads/pr/") {
			continue
		}
		h := headInfo{sha: sha}
		mb, err := Git(gitDir, nil, "merge-base", baseSHA, sha)
		if err != nil {
			return 0, err
		}
		count, err := Git(gitDir, nil, "rev-list", "--count", mb+".."+sha)
		if err != nil {
			return 0, err
		}
		h.commits, _ = strconv.Atoi(count)
		stat, err := Git(gitDir, nil, "diff", "--numstat", mb, sha)
		if err != nil {
			return 0, err
		}
		for _, l := range strings.Split(stat, "\n") {
			f := strings.Fields(l)
			if len(f) < 3 {
				continue
			}
			a, _ := strconv.Atoi(f[0])
			d, _ := strconv.Atoi(f[1])
			h.additions += a
			h.deletions += d
			h.changedFiles++
		}
		heads = append(heads, h)
	}
	if len(heads) == 0 {
		return 0, fmt.Errorf("%s has no branch besides %s to open pull requests from", repo.FullName(), baseRef)
	}

	// Ten users who author and are assigned, ten milestones, labels.
	var users []*model.Account
	var labels, milestones []int64
	err = st.Tx(ctx, func(tx store.Q) error {
		for i := 0; i < 10; i++ {
			u := &model.Account{Login: fmt.Sprintf("contrib%d-%d", i, repo.ID), Type: model.TypeUser}
			if err := tx.CreateAccount(ctx, u); err != nil {
				return err
			}
			if err := tx.SetCollaborator(ctx, repo.ID, u.ID, authz.Write); err != nil {
				return err
			}
			users = append(users, u)
		}
		for _, l := range []string{"area/api", "area/ui", "needs-review", "size/S", "size/L", "dependencies"} {
			if err := tx.CreateLabel(ctx, &model.Label{RepoID: repo.ID, Name: l, Color: "c5def5"}); err != nil {
				return err
			}
		}
		list, _, err := tx.ListLabels(ctx, repo.ID, 100, 0)
		if err != nil {
			return err
		}
		for _, l := range list {
			labels = append(labels, l.ID)
		}
		for i := 1; i <= 10; i++ {
			due := time.Date(2026, time.Month(i), 1, 0, 0, 0, 0, time.UTC)
			m := &model.Milestone{RepoID: repo.ID, Title: fmt.Sprintf("release %d", i), State: "open", DueOn: &due, CreatorID: repo.OwnerID}
			if err := tx.CreateMilestone(ctx, m); err != nil {
				return err
			}
			milestones = append(milestones, m.ID)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}

	refs := map[string]string{}
	created := time.Now().UTC().Add(-time.Duration(n) * time.Minute).Truncate(time.Second)
	for done := 0; done < n; done += batch {
		size := min(batch, n-done)
		issues := make([]*store.SeedIssue, size)
		for k := range issues {
			i := done + k
			body := fmt.Sprintf("This changes component %d.\n\n- [x] tests\n- [ ] docs\n\nFixes #%d", i%37, i/2+1)
			s := &store.SeedIssue{Issue: model.Issue{
				IsPull: true,
				Title:  fmt.Sprintf("Pull request %d: improve component %d", i, i%37),
				Body:   &body,
				UserID: users[i%len(users)].ID,
			}}
			s.CreatedAt = created.Add(time.Duration(i) * time.Minute)
			s.UpdatedAt = s.CreatedAt
			if i%10 == 9 {
				s.State = "closed"
				s.ClosedAt, s.ClosedByID = &s.CreatedAt, repo.OwnerID
			}
			s.LabelIDs = []int64{labels[i%len(labels)], labels[(i/3+5)%len(labels)]}
			if s.LabelIDs[0] == s.LabelIDs[1] {
				s.LabelIDs = s.LabelIDs[:1]
			}
			s.AssigneeIDs = []int64{users[(i+1)%len(users)].ID}
			if i%3 == 0 {
				s.AssigneeIDs = append(s.AssigneeIDs, users[(i+4)%len(users)].ID)
			}
			if i%4 == 0 {
				s.MilestoneID = milestones[i%len(milestones)]
			}
			issues[k] = s
		}
		err := st.Tx(ctx, func(tx store.Q) error {
			if err := tx.SeedIssues(ctx, repo.ID, issues); err != nil {
				return err
			}
			for k, s := range issues {
				i := done + k
				h := heads[i%len(heads)]
				is := s.Issue
				num := strconv.FormatInt(is.Number, 10)
				p := &model.Pull{Issue: &is, BaseRef: baseRef, BaseSHA: baseSHA, HeadRepoID: repo.ID, HeadOwnerID: repo.OwnerID,
					HeadRef: "pr/" + num, HeadSHA: h.sha, Draft: i%15 == 7,
					Commits: h.commits, Additions: h.additions, Deletions: h.deletions, ChangedFiles: h.changedFiles}
				if err := tx.CreatePull(ctx, p); err != nil {
					return err
				}
				// Half of the closed ones were merged (at their head).
				if i%20 == 19 {
					if err := tx.MarkPullMerged(ctx, is.ID, users[0].ID, h.sha, h.sha, baseSHA, s.CreatedAt); err != nil {
						return err
					}
				}
				refs["refs/heads/"+p.HeadRef] = h.sha
				refs["refs/pull/"+num+"/head"] = h.sha
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return len(heads), addPackedRefs(gitDir, refs)
}

// addPackedRefs packs the repository's refs and adds refs (name -> commit)
// to packed-refs, written sorted under git's lock file and renamed in
// place as git does.
func addPackedRefs(gitDir string, refs map[string]string) error {
	if _, err := Git(gitDir, nil, "pack-refs", "--all"); err != nil {
		return err
	}
	path := filepath.Join(gitDir, "packed-refs")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	all := map[string]string{}
	for _, line := range strings.Split(string(old), "\n") {
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue // peeled lines of tags: git reads them lazily again
		}
		sha, name, _ := strings.Cut(line, " ")
		all[name] = sha
	}
	for name, sha := range refs {
		all[name] = sha
	}
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("# pack-refs with: sorted \n")
	for _, name := range names {
		b.WriteString(all[name] + " " + name + "\n")
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		os.Remove(lock)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return err
	}
	return os.Rename(lock, path)
}

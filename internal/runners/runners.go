// Package runners is the self-hosted runners and runner groups domain of
// GitHub Actions. Runners are registered at a repository, an organization
// or hubd's one enterprise; registration and remove tokens and JIT
// configurations have GitHub's shapes, but GitHub's runner application
// cannot reach hubd: every workflow job runs on hubd's own workers (the
// `hubd actions-worker` processes of --actions-workers), and those workers
// register themselves as enterprise runners, one per worker slot, so that
// the runner lists are true. Their status comes from their heartbeats and
// their busy flag from the jobs they run.
//
// Runner groups are enforced when a worker claims a job (Admit): a job
// runs only on a worker whose labels cover its runs-on labels, whose
// enterprise group admits the repository's organization, and — for an
// organization's repository — whose group in that organization (its
// default group unless the organization placed the worker elsewhere)
// admits the repository and workflow. Otherwise the job stays queued.
package runners

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// WorkerLabels are the labels a worker runner gets besides the read-only
// self-hosted, OS and architecture ones: the GitHub-hosted labels that
// workflows ask for and that hubd's Linux host stands in for (custom
// labels: an administrator may remove them, and then such jobs wait).
var WorkerLabels = []string{"ubuntu-latest", "ubuntu-24.04", "ubuntu-22.04"}

// TokenTTL is how long registration and remove tokens are valid.
const TokenTTL = time.Hour

// Service is the runners domain.
type Service struct {
	Store *store.Store
	// Heartbeat is how often worker runners report; a worker not heard of
	// for Offline is offline.
	Heartbeat, Offline time.Duration

	mu    sync.Mutex
	slots []*slot
	ready chan struct{}
}

type slot struct {
	id   int64
	name string
	busy bool
}

// New makes the service.
func New(s *store.Store) *Service {
	return &Service{Store: s, Heartbeat: 15 * time.Second, Offline: time.Minute, ready: make(chan struct{})}
}

// HostOS and HostArch are this machine's runner OS and architecture
// names, as GitHub spells them.
func HostOS() string {
	switch runtime.GOOS {
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return "Linux"
}

// HostArch: see HostOS.
func HostArch() string {
	switch runtime.GOARCH {
	case "arm64":
		return "ARM64"
	case "arm":
		return "ARM"
	case "386":
		return "X86"
	}
	return "X64"
}

// Online reports a runner's status: a worker heard of lately.
func (s *Service) Online(r *model.Runner) bool {
	return r.Worker && !r.LastSeen.IsZero() && s.Store.Now().Sub(r.LastSeen) <= s.Offline
}

// Workers registers this process's n worker slots as runners and keeps
// them online until ctx ends (then they go offline). It is the runner
// queue's OnStart.
func (s *Service) Workers(ctx context.Context, n int) {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	var ids []int64
	var slots []*slot
	for i := 1; i <= n; i++ {
		r := &model.Runner{Name: fmt.Sprintf("hubd-%s-%d", host, i), OS: HostOS(), Arch: HostArch()}
		r.Labels = []model.RunnerLabel{{Name: "self-hosted", ReadOnly: true}, {Name: r.OS, ReadOnly: true}, {Name: r.Arch, ReadOnly: true}}
		if r.OS == "Linux" {
			for _, l := range WorkerLabels {
				r.Labels = append(r.Labels, model.RunnerLabel{Name: l})
			}
		}
		err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.RegisterWorkerRunner(ctx, r) })
		if err != nil {
			slog.Warn("runners: register worker", "name", r.Name, "err", err)
			continue
		}
		ids = append(ids, r.ID)
		slots = append(slots, &slot{id: r.ID, name: r.Name})
	}
	s.mu.Lock()
	s.slots = slots
	select {
	case <-s.ready:
	default:
		close(s.ready)
	}
	s.mu.Unlock()
	t := time.NewTicker(s.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			bctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = s.Store.Tx(bctx, func(tx store.Q) error { return tx.SeenRunners(bctx, ids, time.Time{}) })
			cancel()
			return
		case <-t.C:
			if err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.SeenRunners(ctx, ids, tx.Now()) }); err != nil && ctx.Err() == nil {
				slog.Warn("runners: heartbeat", "err", err)
			}
		}
	}
}

// Admit picks a free worker slot of this process that may run a job of
// repo (workflow ref wref: owner/repo/path@ref) asking for labels, and
// marks it busy until release; name is "" when none may: the job stays
// queued. It waits for the slots' registration.
func (s *Service) Admit(ctx context.Context, repo *model.Repo, wref string, labels []string) (name string, release func(), err error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
	s.mu.Lock()
	var free []int64
	for _, sl := range s.slots {
		if !sl.busy {
			free = append(free, sl.id)
		}
	}
	s.mu.Unlock()
	if len(free) == 0 {
		return "", nil, nil
	}
	ok, hosted, err := s.admitted(ctx, repo, wref, labels, free)
	if err != nil {
		return "", nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sl := range s.slots {
		if !sl.busy && (ok[sl.id] || hosted != "") {
			sl.busy = true
			name := sl.name
			if hosted != "" {
				name = hosted // a hosted runner's job runs under its name
			}
			return name, func() { s.mu.Lock(); sl.busy = false; s.mu.Unlock() }, nil
		}
	}
	return "", nil, nil
}

// admitted are the worker runners among ids that may run the job; when
// none may, hosted is the organization's hosted runner (a pool of any
// workers) that may.
func (s *Service) admitted(ctx context.Context, repo *model.Repo, wref string, labels []string, ids []int64) (ok map[int64]bool, hosted string, err error) {
	q := s.Store.R()
	list, _, err := q.Runners(ctx, store.RunnerFilter{Scope: model.RunnerEnterprise, IDs: ids}, len(ids), 0)
	if err != nil {
		return nil, "", err
	}
	var orgID int64
	owners := []int64{0}
	if repo.Owner != nil && repo.Owner.IsOrg() {
		orgID = repo.Owner.ID
		owners = append(owners, orgID)
	}
	groups, err := q.RunnerGroupsByID(ctx, owners)
	if err != nil {
		return nil, "", err
	}
	entSel, err := q.RunnerGroupAdmits(ctx, 0, orgID)
	if err != nil {
		return nil, "", err
	}
	var orgSel map[int64]bool
	var placed map[int64]int64
	if orgID != 0 {
		if orgSel, err = q.RunnerGroupAdmits(ctx, orgID, repo.ID); err != nil {
			return nil, "", err
		}
		if placed, err = q.WorkerOrgGroups(ctx, orgID, ids); err != nil {
			return nil, "", err
		}
	}
	public := repo.Visibility == model.Public
	out := map[int64]bool{}
	for _, r := range list {
		if !hasLabels(r, labels) {
			continue
		}
		eg := groups[0][r.GroupID]
		if eg == nil || !groupAdmits(eg, orgID != 0, entSel[eg.ID], public, wref) {
			continue
		}
		if orgID != 0 {
			gid := placed[r.ID]
			if gid == 0 {
				gid = model.DefaultRunnerGroupID
			}
			og := groups[orgID][gid]
			if og == nil || !groupAdmits(og, true, orgSel[og.ID], public, wref) {
				continue
			}
		}
		out[r.ID] = true
	}
	if len(out) == 0 {
		sel := map[int64]map[int64]bool{0: entSel}
		if orgID != 0 {
			sel[orgID] = orgSel
		}
		hosted, err = s.hostedFor(ctx, repo, wref, labels, orgID, groups, sel)
	}
	return out, hosted, err
}

// groupAdmits decides a group's admission of a repository: targeted is
// whether it has an organization (enterprise groups; user-owned
// repositories have none and only "all" groups take them) or is a
// repository of the group's organization; selected whether its target is
// among the group's selected ones.
func groupAdmits(g *model.RunnerGroup, targeted, selected, public bool, wref string) bool {
	switch g.Visibility {
	case "selected":
		if !targeted || !selected {
			return false
		}
	case "private":
		if public {
			return false
		}
	}
	if public && !g.AllowsPublic {
		return false
	}
	return !g.RestrictedToWorkflows || workflowAllowed(g.SelectedWorkflows, wref)
}

// workflowAllowed matches a workflow ref against a group's selected
// workflows: owner/repo/path@ref exactly, or with @* for any ref.
func workflowAllowed(patterns []string, wref string) bool {
	file, _, _ := strings.Cut(wref, "@")
	for _, p := range patterns {
		if strings.EqualFold(p, wref) || (strings.HasSuffix(p, "@*") && strings.EqualFold(strings.TrimSuffix(p, "@*"), file)) {
			return true
		}
	}
	return false
}

// ResolveLabels substitutes ${{ matrix.NAME }} in a job's runs-on labels
// with its matrix combination's values; a label still holding an
// expression hubd does not evaluate here is dropped (any runner matches
// it).
func ResolveLabels(labels []string, matrix map[string]any) []string {
	var out []string
	for _, l := range labels {
		for strings.Contains(l, "${{") {
			i := strings.Index(l, "${{")
			j := strings.Index(l[i:], "}}")
			if j < 0 {
				break
			}
			expr := strings.TrimSpace(l[i+3 : i+j])
			name, ok := strings.CutPrefix(expr, "matrix.")
			v, found := matrix[name]
			if !ok || !found {
				break
			}
			l = l[:i] + fmt.Sprint(v) + l[i+j+2:]
		}
		if !strings.Contains(l, "${{") && l != "" {
			out = append(out, l)
		}
	}
	return out
}

// hasLabels reports whether a runner has every label (case-insensitive).
func hasLabels(r *model.Runner, labels []string) bool {
	for _, want := range labels {
		found := false
		for _, l := range r.Labels {
			if strings.EqualFold(l.Name, want) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// randomToken is a registration-style token: 29 upper-case letters and
// digits, as GitHub's look.
func randomToken() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 29)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func hashToken(t string) string {
	h := sha256.Sum256([]byte(t))
	return hex.EncodeToString(h[:])
}

// jitConfig encodes a runner's just-in-time configuration the way
// GitHub's runner reads it (.runner and .credentials files, base64).
func jitConfig(r *model.Runner, serverURL, workFolder, token string) string {
	runner, _ := json.Marshal(map[string]any{"agentId": r.ID, "agentName": r.Name, "poolId": r.GroupID, "poolName": "",
		"serverUrl": serverURL, "gitHubUrl": serverURL, "workFolder": workFolder, "ephemeral": true, "disableUpdate": true})
	creds, _ := json.Marshal(map[string]any{"scheme": "OAuthAccessToken", "data": map[string]string{"token": token}})
	files, _ := json.Marshal(map[string]string{
		".runner":      base64.StdEncoding.EncodeToString(runner),
		".credentials": base64.StdEncoding.EncodeToString(creds),
	})
	return base64.StdEncoding.EncodeToString(files)
}

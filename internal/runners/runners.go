// Package runners is the self-hosted runners and runner groups domain of
// GitHub Actions. Runners are registered at a repository, an organization
// or hubd's one enterprise, with a registration token or a JIT
// configuration (connect.go), and connect to hubd over the runner protocol
// (internal/api/runnerproto, docs/runner-protocol.md) with their own
// credential: `hubd runner` is such a runner. hubd serve
// --actions-workers N starts N local ones, registered as the enterprise
// runners hubd-HOST-N. A runner is online while it polls for jobs or
// heartbeats a job, busy while a job runs on it.
//
// Runner groups are enforced when a job is dispatched (Admit): a job runs
// only on a waiting runner whose labels cover its runs-on labels and,
// for an enterprise runner, whose enterprise group admits the
// repository's organization and — for an organization's repository —
// whose group in that organization (its default group unless the
// organization placed the runner elsewhere) admits the repository and
// workflow; an organization's runner takes the jobs its group admits, a
// repository's runner its repository's. Otherwise the job stays queued.
package runners

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
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
	// Offline: a runner not heard of for this long is offline.
	Offline time.Duration
	// Node names this hubd among the nodes sharing a database (hubd serve
	// --node-name): its local runners are hubd-NODE-N ("": the host name).
	Node string
}

// New makes the service.
func New(s *store.Store) *Service {
	return &Service{Store: s, Offline: time.Minute}
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

// Online reports a runner's status: heard of lately.
func (s *Service) Online(r *model.Runner) bool {
	return !r.LastSeen.IsZero() && s.Store.Now().Sub(r.LastSeen) <= s.Offline
}

// LocalRunner is one of this process's own runners (hubd-HOST-N): its
// name and the credential it connects with.
type LocalRunner struct {
	ID         int64
	Name       string
	Credential string
}

// LocalRunners registers this host's n local runners (hubd serve
// --actions-workers) as enterprise runners, found or created by name,
// each with a new credential (the previous ones stop working).
func (s *Service) LocalRunners(ctx context.Context, n int) ([]LocalRunner, error) {
	var out []LocalRunner
	for _, name := range LocalRunnerNames(s.Node, n) {
		r := &model.Runner{Name: name, OS: HostOS(), Arch: HostArch()}
		r.Labels = []model.RunnerLabel{{Name: "self-hosted", ReadOnly: true}, {Name: r.OS, ReadOnly: true}, {Name: r.Arch, ReadOnly: true}}
		if r.OS == "Linux" {
			for _, l := range WorkerLabels {
				r.Labels = append(r.Labels, model.RunnerLabel{Name: l})
			}
		}
		cred := newCredential()
		err := s.Store.Tx(ctx, func(tx store.Q) error {
			if err := tx.RegisterWorkerRunner(ctx, r); err != nil {
				return err
			}
			return tx.SetRunnerCredential(ctx, r.ID, hashToken(cred))
		})
		if err != nil {
			return nil, fmt.Errorf("runners: register %s: %w", r.Name, err)
		}
		out = append(out, LocalRunner{ID: r.ID, Name: r.Name, Credential: cred})
	}
	return out, nil
}

// LocalRunnerNames are the names of the n local runners of node (hubd
// serve --node-name; "": this host's name).
func LocalRunnerNames(node string, n int) []string {
	host := node
	if host == "" {
		host, _ = os.Hostname()
	}
	if host == "" {
		host = "localhost"
	}
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("hubd-%s-%d", host, i))
	}
	return out
}

// Admit picks, among the runners ids (those waiting for a job), the ones
// that may run a job of repo (workflow ref wref: owner/repo/path@ref)
// asking for labels; when none may, hosted is the organization's hosted
// runner that may (a pool any of hubd's local runners serves).
func (s *Service) Admit(ctx context.Context, repo *model.Repo, wref string, labels []string, ids []int64) (ok map[int64]bool, hosted string, err error) {
	if len(ids) == 0 {
		return nil, "", nil
	}
	return s.admitted(ctx, repo, wref, labels, ids)
}

// admitted are the worker runners among ids that may run the job; when
// none may, hosted is the organization's hosted runner (a pool of any
// workers) that may.
func (s *Service) admitted(ctx context.Context, repo *model.Repo, wref string, labels []string, ids []int64) (ok map[int64]bool, hosted string, err error) {
	q := s.Store.R()
	list, _, err := q.Runners(ctx, store.RunnerFilter{AnyScope: true, IDs: ids}, len(ids), 0)
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
		switch r.Scope {
		case model.RunnerRepo: // a repository's runner takes only its jobs
			if r.OwnerID == repo.ID {
				out[r.ID] = true
			}
			continue
		case model.RunnerOrg: // an organization's, those its group admits
			if og := groups[orgID][r.GroupID]; orgID != 0 && r.OwnerID == orgID && og != nil && groupAdmits(og, true, orgSel[og.ID], public, wref) {
				out[r.ID] = true
			}
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

package runners

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Scope is where runners are managed: a repository, an organization or
// the enterprise, by an actor the caller's adapter authorized (repository
// administrator, organization owner, site administrator).
type Scope struct {
	Kind    string // model.RunnerRepo, RunnerOrg, RunnerEnterprise
	Repo    *model.Repo
	Org     *model.Account
	ActorID int64
}

// OwnerID is the scope's owner: repository, organization or 0.
func (sc Scope) OwnerID() int64 {
	switch sc.Kind {
	case model.RunnerRepo:
		return sc.Repo.ID
	case model.RunnerOrg:
		return sc.Org.ID
	}
	return 0
}

func (sc Scope) filter() store.RunnerFilter {
	return store.RunnerFilter{Scope: sc.Kind, OwnerID: sc.OwnerID(), Workers: sc.Kind == model.RunnerOrg}
}

// event appends a runner event of the scope.
func (sc Scope) event(ctx context.Context, tx store.Q, typ string, payload map[string]any) error {
	var repoID, orgID int64
	switch sc.Kind {
	case model.RunnerRepo:
		repoID = sc.Repo.ID
		if sc.Repo.Owner != nil && sc.Repo.Owner.IsOrg() {
			orgID = sc.Repo.Owner.ID
		}
	case model.RunnerOrg:
		orgID = sc.Org.ID
	}
	payload["scope"] = sc.Kind
	return tx.AppendEvent(ctx, typ, sc.ActorID, repoID, orgID, payload)
}

// List lists the scope's runners (an organization's include hubd's
// workers), optionally those named name.
func (s *Service) List(ctx context.Context, sc Scope, name string, limit, offset int) ([]*model.Runner, int, error) {
	f := sc.filter()
	f.Name = name
	return s.Store.R().Runners(ctx, f, limit, offset)
}

// Get finds a runner of the scope.
func (s *Service) Get(ctx context.Context, sc Scope, id int64) (*model.Runner, error) {
	return s.Store.R().Runner(ctx, sc.filter(), id)
}

// errWorker refuses changes to hubd's worker runners where they are not
// the scope's own, and their removal.
var errWorker = model.Unprocessable("This runner is one of hubd's own workers (hubd serve --actions-workers): it cannot be removed, and only the enterprise manages its labels.")

// mutable finds a runner of the scope that the scope may change.
func (s *Service) mutable(ctx context.Context, sc Scope, id int64) (*model.Runner, error) {
	r, err := s.Get(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	if r.Worker && sc.Kind != model.RunnerEnterprise {
		return nil, errWorker
	}
	return r, nil
}

// Delete removes a runner registered through the API.
func (s *Service) Delete(ctx context.Context, sc Scope, id int64) error {
	r, err := s.mutable(ctx, sc, id)
	if err != nil {
		return err
	}
	if r.Worker {
		return errWorker
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteRunner(ctx, id); err != nil {
			return err
		}
		return sc.event(ctx, tx, "runner.deleted", map[string]any{"runner_id": id, "name": r.Name})
	})
}

// labelErr is a 422 of the labels operations (GitHub's "validation error
// simple": reasons as strings).
func labelErr(reason string) error {
	return &model.HTTPError{Status: 422, Message: "Validation Failed", Reasons: []string{reason}}
}

// cleanLabels validates label names (min..100 of them, 1 to 256
// characters each) and drops duplicates.
func cleanLabels(names []string, min int) ([]string, error) {
	if len(names) < min || len(names) > 100 {
		return nil, labelErr(fmt.Sprintf("Between %d and 100 labels are needed.", min))
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || len(n) > 256 || strings.ContainsAny(n, ",\n") {
			return nil, labelErr(fmt.Sprintf("Label %q is not a valid label name.", n))
		}
		if !seen[strings.ToLower(n)] {
			seen[strings.ToLower(n)] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// LabelOp changes a runner's custom labels: add, set, or remove (all of
// them when name is "", else the one named). It returns the runner's
// labels after the change.
func (s *Service) LabelOp(ctx context.Context, sc Scope, id int64, op string, names []string) ([]model.RunnerLabel, error) {
	r, err := s.mutable(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	var add []string
	switch op {
	case "add", "set":
		min := 1
		if op == "set" {
			min = 0
		}
		if add, err = cleanLabels(names, min); err != nil {
			return nil, err
		}
		for _, n := range add {
			for _, l := range r.Labels {
				if l.ReadOnly && strings.EqualFold(l.Name, n) {
					return nil, labelErr(fmt.Sprintf("Label %q is a read-only label of this runner.", l.Name))
				}
			}
		}
	case "remove":
		for _, l := range r.Labels {
			if len(names) == 1 && l.ReadOnly && strings.EqualFold(l.Name, names[0]) {
				return nil, labelErr(fmt.Sprintf("Label %q is read-only and cannot be removed.", l.Name))
			}
		}
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		switch op {
		case "set":
			if _, err := tx.RemoveRunnerLabels(ctx, id, ""); err != nil {
				return err
			}
			r.Labels = readOnly(r.Labels)
		case "remove":
			name := ""
			if len(names) == 1 {
				name = names[0]
			}
			found, err := tx.RemoveRunnerLabels(ctx, id, name)
			if err != nil {
				return err
			}
			if name != "" && !found {
				return model.ErrNotFound
			}
			r.Labels = keep(r.Labels, name)
		}
		var fresh []model.RunnerLabel
		for _, n := range add {
			if !labelIn(r.Labels, n) {
				fresh = append(fresh, model.RunnerLabel{Name: n})
			}
		}
		if err := tx.AddRunnerLabels(ctx, id, fresh); err != nil {
			return err
		}
		r.Labels = append(r.Labels, fresh...)
		return sc.event(ctx, tx, "runner.labels_changed", map[string]any{"runner_id": id, "op": op, "labels": names})
	})
	return r.Labels, err
}

func readOnly(ls []model.RunnerLabel) []model.RunnerLabel {
	var out []model.RunnerLabel
	for _, l := range ls {
		if l.ReadOnly {
			out = append(out, l)
		}
	}
	return out
}

// keep drops custom labels: all of them (name "") or the one named.
func keep(ls []model.RunnerLabel, name string) []model.RunnerLabel {
	out := []model.RunnerLabel{}
	for _, l := range ls {
		if l.ReadOnly || (name != "" && !strings.EqualFold(l.Name, name)) {
			out = append(out, l)
		}
	}
	return out
}

func labelIn(ls []model.RunnerLabel, n string) bool {
	for _, l := range ls {
		if strings.EqualFold(l.Name, n) {
			return true
		}
	}
	return false
}

// Token makes a registration or remove token (kind "registration" or
// "remove") valid for an hour; only its hash is kept.
func (s *Service) Token(ctx context.Context, sc Scope, kind string) (string, time.Time, error) {
	tok := randomToken()
	var expires time.Time
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		expires = tx.Now().Add(TokenTTL).Truncate(time.Second)
		if err := tx.CreateRunnerToken(ctx, kind, sc.Kind, sc.OwnerID(), hashToken(tok), expires); err != nil {
			return err
		}
		return sc.event(ctx, tx, "runner."+kind+"_token_created", map[string]any{"expires_at": expires.Unix()})
	})
	return tok, expires, err
}

// JITInput is the body of generate-jitconfig.
type JITInput struct {
	Name          string   `json:"name"`
	RunnerGroupID int64    `json:"runner_group_id"`
	Labels        []string `json:"labels"`
	WorkFolder    string   `json:"work_folder"`
}

// osLabels and archLabels are the default labels GitHub treats as a
// runner's OS and architecture (read-only).
var (
	osLabels   = []string{"Linux", "macOS", "Windows"}
	archLabels = []string{"X64", "X86", "ARM", "ARM64"}
)

// JIT registers a runner from a just-in-time configuration and returns
// it with its encoded configuration, which carries hubd's URL and the
// runner's credential: `hubd runner --jitconfig` connects with it. The
// runner is ephemeral: it is removed after its one job.
func (s *Service) JIT(ctx context.Context, sc Scope, in JITInput, serverURL string) (*model.Runner, string, error) {
	r, err := newRunner(in.Name, in.Labels)
	if err != nil {
		return nil, "", err
	}
	if in.WorkFolder == "" {
		in.WorkFolder = "_work"
	}
	r.Scope, r.OwnerID, r.Ephemeral = sc.Kind, sc.OwnerID(), true
	if sc.Kind != model.RunnerRepo {
		if _, err := s.Store.R().RunnerGroup(ctx, sc.OwnerID(), in.RunnerGroupID); errors.Is(err, model.ErrNotFound) {
			return nil, "", model.Custom("Runner", "runner_group_id", "Runner group not found.")
		} else if err != nil {
			return nil, "", err
		}
		r.GroupID = in.RunnerGroupID
	}
	cred := newCredential()
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateRunner(ctx, r); err != nil {
			if errors.Is(err, store.ErrDuplicate) {
				return model.Conflict("Already exists - A runner with the name " + r.Name + " already exists.")
			}
			return err
		}
		if err := tx.SetRunnerCredential(ctx, r.ID, hashToken(cred)); err != nil {
			return err
		}
		return sc.event(ctx, tx, "runner.created", map[string]any{"runner_id": r.ID, "name": r.Name, "jit": true})
	})
	if err != nil {
		return nil, "", err
	}
	return r, jitConfig(r, serverURL, in.WorkFolder, cred), nil
}

// newRunner makes a runner named name with labels: self-hosted, its OS and
// architecture (read-only; Linux X64 unless a label names others) and the
// custom rest.
func newRunner(name string, labelNames []string) (*model.Runner, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 64 {
		return nil, model.Invalid("Runner", "name", "invalid")
	}
	labels, err := cleanLabels(labelNames, 1)
	if err != nil {
		return nil, err
	}
	r := &model.Runner{Name: name, OS: "Linux", Arch: "X64"}
	r.Labels = []model.RunnerLabel{{Name: "self-hosted", ReadOnly: true}}
	for _, l := range labels {
		switch {
		case strings.EqualFold(l, "self-hosted"):
		case pick(osLabels, l) != "":
			r.OS = pick(osLabels, l)
		case pick(archLabels, l) != "":
			r.Arch = pick(archLabels, l)
		default:
			r.Labels = append(r.Labels, model.RunnerLabel{Name: l})
		}
	}
	r.Labels = append(r.Labels[:1], append([]model.RunnerLabel{{Name: r.OS, ReadOnly: true}, {Name: r.Arch, ReadOnly: true}}, r.Labels[1:]...)...)
	return r, nil
}

func pick(list []string, l string) string {
	for _, x := range list {
		if strings.EqualFold(x, l) {
			return x
		}
	}
	return ""
}

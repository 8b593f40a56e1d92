package actions

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	actmodel "github.com/nektos/act/pkg/model"
)

// A job's actions (`uses: owner/repo[/path]@ref`) come from hubd's own
// repositories, never from the network: before the worker starts, hubd
// resolves every action the job uses (those of its composite actions too),
// checks that the job's repository may use it, refuses what needs Docker,
// and leaves each action's tree at its commit as a tar.gz in the job's
// directory. The worker hands act an ActionCache that reads them.

// maxActionDepth bounds nested composite actions (GitHub allows 10 levels).
const maxActionDepth = 10

// noContainers ends a job's messages about what needs Docker.
const noContainers = "hubd runs jobs on its host without containers (no Docker daemon)"

var usesPattern = regexp.MustCompile(`^([^/@]+)/([^/@]+)(?:/([^@]*))?@(.+)$`)

// actionRef is a parsed `uses: owner/repo[/path]@ref`.
type actionRef struct{ Owner, Repo, Path, Ref string }

func parseUses(s string) *actionRef {
	m := usesPattern.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	return &actionRef{Owner: m[1], Repo: m[2], Path: m[3], Ref: m[4]}
}

// cacheName is the file name of an action repository's tree at sha in
// the job's action directory.
func cacheName(ownerRepo, sha string) string {
	return strings.NewReplacer("/", "-", "\\", "-", "..", "-").Replace(ownerRepo) + "-" + sha + ".tar.gz"
}

// actionResolver resolves the actions of one job.
type actionResolver struct {
	e    *Executor
	repo *model.Repo // the job's repository
	sha  string      // its commit (local actions)
	dir  string      // where the trees go
	spec *Spec
}

// prepareActions checks what the job needs before any step runs: no
// container or services, no Docker action, every remote action found.
func (e *Executor) prepareActions(ctx context.Context, repo *model.Repo, run *model.WorkflowRun, w *parsed, key, dir string, spec *Spec) error {
	job := w.wf.Jobs[key]
	if job == nil {
		return nil
	}
	if job.Container() != nil {
		return fmt.Errorf("This job uses `container:`: %s, so jobs that run in a container are not supported.", noContainers)
	}
	if len(job.Services) > 0 {
		return fmt.Errorf("This job uses `services:`: %s, so service containers are not supported.", noContainers)
	}
	r := &actionResolver{e: e, repo: repo, sha: run.HeadSHA, dir: filepath.Join(dir, "actions"), spec: spec}
	return r.steps(ctx, job.Steps, 0)
}

func (r *actionResolver) steps(ctx context.Context, steps []*actmodel.Step, depth int) error {
	if depth > maxActionDepth {
		return fmt.Errorf("Composite actions are nested more than %d levels deep.", maxActionDepth)
	}
	for _, st := range steps {
		if st == nil || st.Uses == "" {
			continue
		}
		if err := r.step(ctx, st, depth); err != nil {
			return err
		}
	}
	return nil
}

func (r *actionResolver) step(ctx context.Context, st *actmodel.Step, depth int) error {
	uses := st.Uses
	switch st.Type() {
	case actmodel.StepTypeUsesDockerURL:
		return fmt.Errorf("The step %q uses the Docker image `%s`: %s, so Docker container actions are not supported.", stepName(st), uses, noContainers)
	case actmodel.StepTypeUsesActionLocal:
		// Local actions are read from the checkout; one that an earlier
		// step makes is not known yet and act reports it.
		a, _, err := r.readAction(ctx, r.e.svc.Git.Open(r.repo.ID), r.sha, path.Clean(strings.TrimPrefix(uses, "./")))
		if err != nil || a == nil {
			return nil
		}
		return r.check(ctx, st, a, depth)
	case actmodel.StepTypeUsesActionRemote:
	default:
		return nil
	}
	ref := parseUses(uses)
	if ref == nil {
		return fmt.Errorf("Expected format {org}/{repo}[/path]@ref. Actual '%s' Input string was not in a correct format.", uses)
	}
	if isCheckout(ref) && st.With["repository"] == "" {
		return nil // act copies the job's own checkout
	}
	key := ref.Owner + "/" + ref.Repo + "@" + ref.Ref
	repo, g, sha, err := r.resolve(ctx, ref)
	if err != nil {
		return err
	}
	a, dockerfile, err := r.readAction(ctx, g, sha, path.Clean(ref.Path))
	if err != nil {
		return err
	}
	if a == nil && dockerfile {
		return fmt.Errorf("The action `%s` is a Docker container action: %s, so it cannot run.", uses, noContainers)
	}
	if a == nil {
		return fmt.Errorf("Can't find 'action.yml', 'action.yaml' or 'Dockerfile' for action '%s'.", uses)
	}
	if _, done := r.spec.Actions[key]; !done {
		if err := r.export(ctx, g, repo, sha); err != nil {
			return err
		}
		if r.spec.Actions == nil {
			r.spec.Actions = map[string]string{}
		}
		r.spec.Actions[key] = sha
		r.spec.ActionsDir = r.dir
	}
	return r.check(ctx, st, a, depth)
}

// check refuses a Docker action and follows a composite action's steps.
func (r *actionResolver) check(ctx context.Context, st *actmodel.Step, a *actmodel.Action, depth int) error {
	switch {
	case a.Runs.Using.IsDocker():
		return fmt.Errorf("The action `%s` is a Docker container action (runs.using: docker): %s, so it cannot run.", st.Uses, noContainers)
	case a.Runs.Using.IsComposite():
		steps := make([]*actmodel.Step, len(a.Runs.Steps))
		for i := range a.Runs.Steps {
			steps[i] = &a.Runs.Steps[i]
		}
		return r.steps(ctx, steps, depth+1)
	}
	return nil
}

func stepName(st *actmodel.Step) string {
	if st.Name != "" {
		return st.Name
	}
	if st.ID != "" {
		return st.ID
	}
	return st.Uses
}

func isCheckout(ref *actionRef) bool {
	return strings.EqualFold(ref.Owner, "actions") && strings.EqualFold(ref.Repo, "checkout")
}

var shaPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// resolve finds an action's repository and the commit of its ref, as the
// job's repository may see it: public repositories, and the repositories
// of the job repository's own owner (GitHub's "accessible from
// repositories owned by" sharing, which hubd grants by default).
func (r *actionResolver) resolve(ctx context.Context, ref *actionRef) (*model.Repo, *gitrepo.Repo, string, error) {
	notFound := fmt.Errorf("Unable to resolve action `%s/%s@%s`, repository not found", ref.Owner, ref.Repo, ref.Ref)
	v, err := r.e.svc.Store.R().RepoByName(ctx, ref.Owner, ref.Repo, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil, "", notFound
	}
	if err != nil {
		return nil, nil, "", err
	}
	repo := v.Repo
	if repo.Visibility != model.Public && repo.OwnerID != r.repo.OwnerID {
		return nil, nil, "", notFound
	}
	g := r.e.svc.Git.Open(repo.ID)
	var cands []string
	if shaPattern.MatchString(ref.Ref) {
		cands = []string{ref.Ref}
	}
	if gitrepo.Operand(ref.Ref) == nil && !strings.Contains(ref.Ref, "..") {
		cands = append(cands, "refs/tags/"+ref.Ref, "refs/heads/"+ref.Ref)
	}
	for _, c := range cands {
		if sha, err := g.ResolveRef(ctx, c+"^{commit}"); err == nil {
			return repo, g, sha, nil
		}
	}
	return nil, nil, "", fmt.Errorf("Unable to resolve action `%s/%s@%s`, unable to find version `%s`", ref.Owner, ref.Repo, ref.Ref, ref.Ref)
}

// readAction reads action.yml (or action.yaml) under dir at sha; nil when
// there is none (dockerfile: a Dockerfile is there instead).
func (r *actionResolver) readAction(ctx context.Context, g *gitrepo.Repo, sha, dir string) (*actmodel.Action, bool, error) {
	for _, name := range []string{"action.yml", "action.yaml"} {
		_, b, err := g.Read(ctx, sha+":"+path.Join(dir, name), 1<<20)
		if err != nil {
			continue
		}
		a, err := actmodel.ReadAction(bytes.NewReader(b))
		if err != nil {
			return nil, false, fmt.Errorf("The action at `%s` has an invalid %s: %v", path.Join(dir, name), name, err)
		}
		return a, false, nil
	}
	_, _, err := g.Read(ctx, sha+":"+path.Join(dir, "Dockerfile"), 1<<20)
	return nil, err == nil, nil
}

// export writes the action repository's tree at sha to the job's action
// directory.
func (r *actionResolver) export(ctx context.Context, g *gitrepo.Repo, repo *model.Repo, sha string) error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	name := filepath.Join(r.dir, cacheName(repo.Owner.Login+"/"+repo.Name, sha))
	if _, err := os.Stat(name); err == nil {
		return nil
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = g.Archive(ctx, f, gitrepo.ArchiveTarGz, "", sha, func() {})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// offlineActions is act's ActionCache in the worker: the actions hubd
// resolved before the job started, and nothing else.
type offlineActions struct {
	dir     string
	actions map[string]string // owner/repo@ref → commit
}

// Fetch answers the commit of an action hubd resolved.
func (c *offlineActions) Fetch(_ context.Context, cacheDir, _, ref, _ string) (string, error) {
	if sha, ok := c.actions[cacheDir+"@"+ref]; ok {
		return sha, nil
	}
	return "", fmt.Errorf("Unable to resolve action `%s@%s`, repository or ref not found", cacheDir, ref)
}

// GetTarArchive streams the files under includePrefix of the action
// repository's tree at sha (names relative to the prefix, as act's git
// cache gives them).
func (c *offlineActions) GetTarArchive(ctx context.Context, cacheDir, sha, includePrefix string) (io.ReadCloser, error) {
	f, err := c.open(cacheDir, sha)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	prefix := path.Clean(includePrefix)
	if prefix == "/" {
		prefix = "."
	}
	pr, pw := io.Pipe()
	go func() {
		defer f.Close()
		tr, tw := tar.NewReader(zr), tar.NewWriter(pw)
		err := func() error {
			for {
				h, err := tr.Next()
				if errors.Is(err, io.EOF) {
					return tw.Close()
				}
				if err != nil {
					return err
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeSymlink {
					continue
				}
				name := path.Clean(h.Name)
				if rest, ok := strings.CutPrefix(name, prefix+"/"); ok {
					name = rest
				} else if prefix != "." && name != prefix {
					continue
				}
				h.Name = name
				if err := tw.WriteHeader(h); err != nil {
					return err
				}
				if _, err := io.Copy(tw, tr); err != nil {
					return err
				}
			}
		}()
		pw.CloseWithError(err)
	}()
	return pr, nil
}

func (c *offlineActions) open(cacheDir, sha string) (*os.File, error) {
	if !shaPattern.MatchString(sha) {
		return nil, fmt.Errorf("action %s: bad commit %q", cacheDir, sha)
	}
	f, err := os.Open(filepath.Join(c.dir, cacheName(cacheDir, sha)))
	if err == nil {
		return f, nil
	}
	// The workflow may spell the owner or name in another case than the
	// repository's: the one file of this commit is it.
	m, _ := filepath.Glob(filepath.Join(c.dir, "*-"+sha+".tar.gz"))
	for _, name := range m {
		if strings.EqualFold(filepath.Base(name), cacheName(cacheDir, sha)) {
			return os.Open(name)
		}
	}
	return nil, err
}

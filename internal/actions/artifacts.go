package actions

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// The services a job's steps talk to, served by hubd itself: artifacts
// (the "results" ArtifactService of @actions/artifact 2.x, whose zips go
// to hubd's data directory) and caches (caches.go). A job reaches them
// with ACTIONS_RUNTIME_TOKEN, a token made for the job when it starts and
// recorded (hashed) in the database; it works while the job is in
// progress.

const (
	kindRetention = "actions.retention" // delete expired artifacts and caches
	// DefaultArtifactRetention is a repository's artifact retention in days
	// (GitHub's default and largest).
	DefaultArtifactRetention = 90
	sweepEvery               = time.Hour
	// RunnerPrefix starts the paths of the job services' URLs (logins
	// cannot begin with "_", so no repository path looks like them).
	RunnerPrefix = "/_actions/_runner"
)

// Storage keeps artifacts and caches of jobs.
type Storage struct {
	svc *Service
	// Dir is hubd's data directory for them: Dir/artifacts/<id>.zip and
	// Dir/caches/<id> (uploads in progress under Dir/uploads).
	Dir string
	// URL is hubd's base URL given to jobs (ACTIONS_RESULTS_URL,
	// ACTIONS_CACHE_URL).
	URL string
	// Retention, when set, is a repository's artifact and log retention
	// in days (its Actions policy); DefaultArtifactRetention otherwise.
	Retention func(ctx context.Context, repo *model.Repo) (int, error)
}

// retention is the artifact retention of a repository in days.
func (st *Storage) retention(ctx context.Context, repo *model.Repo) (int, error) {
	if st.Retention == nil {
		return DefaultArtifactRetention, nil
	}
	d, err := st.Retention(ctx, repo)
	if err != nil || d <= 0 || d > DefaultArtifactRetention {
		return DefaultArtifactRetention, err
	}
	return d, nil
}

// NewStorage makes the artifact and cache services of svc, with their
// files under dir, and completes every job's spec with their URLs and a
// runtime token.
func NewStorage(svc *Service, dir, url string) *Storage {
	st := &Storage{svc: svc, Dir: dir, URL: strings.TrimSuffix(url, "/")}
	if svc.Queue != nil {
		svc.Queue.Handle(kindRetention, st.handleRetention)
	}
	svc.Exec.SpecHooks = append(svc.Exec.SpecHooks, st.specHook)
	return st
}

// runtimeToken makes a job's ACTIONS_RUNTIME_TOKEN: a JWT-shaped token
// whose claims carry the "Actions.Results:<run>:<job>" scope the
// @actions/artifact client reads, signed by nothing but its randomness
// (hubd keeps its hash).
func runtimeToken(runID, jobID int64) (string, error) {
	enc := base64.RawURLEncoding
	head, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT"})
	now := time.Now()
	claims, _ := json.Marshal(map[string]any{
		"scp": fmt.Sprintf("Actions.GenericRead:00000000-0000-0000-0000-000000000000 Actions.Results:%d:%d", runID, jobID),
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(maxJobTimeout + time.Hour).Unix(), "iss": "hubd",
	})
	sig := make([]byte, 32)
	if _, err := rand.Read(sig); err != nil {
		return "", err
	}
	return enc.EncodeToString(head) + "." + enc.EncodeToString(claims) + "." + enc.EncodeToString(sig), nil
}

func tokenHash(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// specHook gives a job its runtime token and the services' URLs.
func (st *Storage) specHook(ctx context.Context, jc JobContext, spec *Spec) error {
	tok, err := runtimeToken(jc.Run.ID, jc.Job.ID)
	if err != nil {
		return err
	}
	rt := model.RuntimeToken{JobID: jc.Job.ID, RunID: jc.Run.ID, RepoID: jc.Repo.ID, Ref: jc.Run.Ref}
	if err := st.svc.Store.Tx(ctx, func(tx store.Q) error { return tx.SaveRuntimeToken(ctx, tokenHash(tok), rt) }); err != nil {
		return err
	}
	spec.Env["ACTIONS_RUNTIME_TOKEN"] = tok
	spec.Env["ACTIONS_RUNTIME_URL"] = st.URL + "/"
	spec.Env["ACTIONS_RESULTS_URL"] = st.URL + "/"
	spec.Env["ACTIONS_CACHE_URL"] = st.URL + RunnerPrefix + "/cache/"
	days, err := st.retention(ctx, jc.Repo)
	if err != nil {
		return err
	}
	spec.Env["GITHUB_RETENTION_DAYS"] = strconv.Itoa(days)
	return nil
}

// ErrBadRuntimeToken answers a runner request without a valid token.
var ErrBadRuntimeToken = &model.HTTPError{Status: 401, Message: "Bad credentials"}

// Authenticate finds the job of an Authorization header's bearer token;
// the token of a finished job no longer works.
func (st *Storage) Authenticate(ctx context.Context, authorization string) (*model.RuntimeToken, error) {
	tok, ok := strings.CutPrefix(authorization, "Bearer ")
	if !ok || tok == "" {
		return nil, ErrBadRuntimeToken
	}
	rt, err := st.svc.Store.R().RuntimeToken(ctx, tokenHash(strings.TrimSpace(tok)))
	if errors.Is(err, model.ErrNotFound) {
		return nil, ErrBadRuntimeToken
	}
	return rt, err
}

// ArtifactPath is where an uploaded artifact's zip is kept.
func (st *Storage) ArtifactPath(id int64) string {
	return filepath.Join(st.Dir, "artifacts", strconv.FormatInt(id, 10)+".zip")
}

// uploadDir holds the blocks of an upload in progress (kind "artifact"
// or "cache").
func (st *Storage) uploadDir(kind string, id int64) string {
	return filepath.Join(st.Dir, "uploads", kind+"-"+strconv.FormatInt(id, 10))
}

// validArtifactName refuses the characters @actions/artifact refuses.
func validArtifactName(name string) error {
	if strings.TrimSpace(name) == "" || len(name) > 256 {
		return model.BadRequest("The artifact name is empty or too long.")
	}
	if strings.ContainsAny(name, "\":<>|*?\r\n\\/") {
		return model.BadRequest(fmt.Sprintf("The artifact name is not valid: %s. It may not contain \" : < > | * ? \\r \\n \\ /", name))
	}
	return nil
}

// CreateArtifact starts the upload of an artifact of the token's run;
// expires (nil: the repository's retention) is capped at 90 days. A name
// the run already uploaded is a conflict; an upload of it left unfinished
// starts over.
func (st *Storage) CreateArtifact(ctx context.Context, rt *model.RuntimeToken, name string, expires *time.Time) (*model.Artifact, error) {
	if err := validArtifactName(name); err != nil {
		return nil, err
	}
	q := st.svc.Store.R()
	run, err := q.Run(ctx, rt.RepoID, rt.RunID)
	if err != nil {
		return nil, err
	}
	v, err := q.RepoByID(ctx, rt.RepoID, 0)
	if err != nil {
		return nil, err
	}
	days, err := st.retention(ctx, v.Repo)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	exp := now.Add(time.Duration(days) * 24 * time.Hour)
	if expires != nil && expires.After(now) && expires.Before(exp) {
		exp = *expires
	}
	a := &model.Artifact{RepoID: rt.RepoID, RunID: rt.RunID, JobID: rt.JobID, Name: name, HeadSHA: run.HeadSHA, ExpiresAt: exp}
	if run.HeadBranch != nil {
		a.HeadBranch = *run.HeadBranch
	}
	taken := model.Conflict(fmt.Sprintf("An artifact with the name %s was already created for this workflow run.", name))
	err = st.svc.Store.Tx(ctx, func(tx store.Q) error {
		// Looked up first: a failed insert aborts a PostgreSQL transaction.
		old, err := tx.ArtifactByName(ctx, rt.RunID, name)
		switch {
		case errors.Is(err, model.ErrNotFound):
		case err != nil:
			return err
		case old.Finalized:
			return taken
		default:
			if err := tx.DeleteArtifact(ctx, old.ID); err != nil {
				return err
			}
			os.RemoveAll(st.uploadDir("artifact", old.ID))
		}
		if err := tx.CreateArtifact(ctx, a); !errors.Is(err, store.ErrDuplicate) {
			return err
		}
		return taken // a concurrent upload of the name
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// PendingArtifact finds an artifact being uploaded (the upload URL's).
func (st *Storage) PendingArtifact(ctx context.Context, repoID, runID int64, name string) (*model.Artifact, error) {
	a, err := st.svc.Store.R().ArtifactByName(ctx, runID, name)
	if err != nil || a.RepoID != repoID || a.Finalized {
		return nil, model.ErrNotFound
	}
	return a, nil
}

// maxBlock bounds one uploaded block (the client sends 8 MiB ones).
const maxBlock = 256 << 20

// PutBlock keeps one block of an upload (Azure's Put Block); blockID is
// the client's base64 id.
func (st *Storage) PutBlock(kind string, id int64, blockID string, body io.Reader) error {
	dir := st.uploadDir(kind, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "block-"+hex.EncodeToString([]byte(blockID))), io.LimitReader(body, maxBlock+1), maxBlock)
}

// CommitBlocks joins an upload's blocks, in the order given, into its
// file (Azure's Put Block List); with no blocks, body is the whole file
// (Put Blob).
func (st *Storage) CommitBlocks(kind string, id int64, dest string, blocks []string, body io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return err
	}
	tmp := dest + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	dir := st.uploadDir(kind, id)
	if blocks == nil {
		_, err = io.Copy(f, body)
	}
	for _, b := range blocks {
		if err != nil {
			break
		}
		var part *os.File
		if part, err = os.Open(filepath.Join(dir, "block-"+hex.EncodeToString([]byte(b)))); err != nil {
			err = model.BadRequest("The specified block list is invalid.")
			break
		}
		_, err = io.Copy(f, part)
		part.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	os.RemoveAll(dir)
	return os.Rename(tmp, dest)
}

func writeFile(path string, r io.Reader, max int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > max {
		err = model.BadRequest("The block is too large.")
	}
	return err
}

// FinalizeArtifact completes an upload: the zip must be there (with the
// size the client says, when it says one).
func (st *Storage) FinalizeArtifact(ctx context.Context, rt *model.RuntimeToken, name string, size int64) (*model.Artifact, error) {
	a, err := st.PendingArtifact(ctx, rt.RepoID, rt.RunID, name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(st.ArtifactPath(a.ID))
	if err != nil {
		return nil, model.BadRequest("The artifact " + name + " was not uploaded.")
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	f.Close()
	if err != nil {
		return nil, err
	}
	if size > 0 && n != size {
		return nil, model.BadRequest(fmt.Sprintf("The artifact %s has %d bytes, not %d.", name, n, size))
	}
	a.Size, a.Digest, a.Finalized = n, "sha256:"+hex.EncodeToString(h.Sum(nil)), true
	err = st.svc.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.FinalizeArtifact(ctx, a.ID, a.Size, a.Digest); err != nil {
			return err
		}
		if err := st.scheduleSweep(ctx, tx); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "workflow_artifact.created", 0, a.RepoID, 0, map[string]any{"artifact_id": a.ID, "run_id": a.RunID, "name": a.Name})
	})
	if err != nil {
		return nil, err
	}
	st.svc.Queue.Notify()
	return a, nil
}

// RunArtifacts lists the uploaded artifacts of the token's run (by name
// and/or id when given).
func (st *Storage) RunArtifacts(ctx context.Context, rt *model.RuntimeToken, name string, id int64) ([]*model.Artifact, error) {
	list, _, err := st.svc.Store.R().Artifacts(ctx, store.ArtifactFilter{RepoID: rt.RepoID, RunID: rt.RunID, Name: name}, 1000, 0)
	if err != nil || id == 0 {
		return list, err
	}
	var out []*model.Artifact
	for _, a := range list {
		if a.ID == id {
			out = append(out, a)
		}
	}
	return out, nil
}

// DeleteArtifact deletes an artifact and its zip.
func (st *Storage) DeleteArtifact(ctx context.Context, repo *model.Repo, actorID int64, a *model.Artifact) error {
	err := st.svc.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteArtifact(ctx, a.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "workflow_artifact.deleted", actorID, a.RepoID, orgID(repo), map[string]any{"artifact_id": a.ID, "run_id": a.RunID})
	})
	if err == nil {
		os.Remove(st.ArtifactPath(a.ID))
	}
	return err
}

// scheduleSweep makes sure a retention sweep is queued (one pending at a
// time: a later request does not postpone it) while artifacts or caches
// are kept; the sweep also forgets the runtime tokens of finished jobs
// (which stop working when their job ends anyway).
func (st *Storage) scheduleSweep(ctx context.Context, tx store.Q) error {
	if st.svc.Queue == nil {
		return nil
	}
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindRetention, Key: kindRetention, Delay: sweepEvery})
}

func (st *Storage) handleRetention(ctx context.Context, _ []byte) error {
	more, err := st.Sweep(ctx, time.Now())
	if err != nil || !more {
		return err
	}
	return st.svc.Store.Tx(ctx, func(tx store.Q) error { return st.scheduleSweep(ctx, tx) })
}

// Sweep deletes what expired at now: artifacts past their retention (and
// their zips), caches unused for longer than their repository's
// retention, unfinished uploads and the runtime tokens of finished jobs.
// It reports whether artifacts or caches remain (another sweep is due).
func (st *Storage) Sweep(ctx context.Context, now time.Time) (bool, error) {
	q := st.svc.Store.Background()
	for {
		list, err := q.ExpiredArtifacts(ctx, now, 500)
		if err != nil {
			return true, err
		}
		for _, a := range list {
			if err := st.svc.Store.Tx(ctx, func(tx store.Q) error {
				if err := tx.DeleteArtifact(ctx, a.ID); err != nil {
					return err
				}
				return tx.AppendEvent(ctx, "workflow_artifact.expired", 0, a.RepoID, 0, map[string]any{"artifact_id": a.ID, "run_id": a.RunID})
			}); err != nil {
				return true, err
			}
			os.Remove(st.ArtifactPath(a.ID))
			os.RemoveAll(st.uploadDir("artifact", a.ID))
		}
		if len(list) < 500 {
			break
		}
	}
	if err := st.sweepCaches(ctx, now); err != nil {
		return true, err
	}
	if err := st.svc.Store.Tx(ctx, func(tx store.Q) error { return tx.DeleteFinishedRuntimeTokens(ctx) }); err != nil {
		return true, err
	}
	arts, _ := os.ReadDir(filepath.Join(st.Dir, "artifacts"))
	caches, _ := os.ReadDir(filepath.Join(st.Dir, "caches"))
	return len(arts)+len(caches) > 0, nil
}

package actions

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/robfig/cron/v3"
	"gopkg.in/yaml.v3"
)

// The schedule trigger: the cron schedules of the default branch's
// workflows are kept in the database with their next firing (UTC, as on
// GitHub); one keyed job of the queue wakes at the earliest firing, fires
// the schedules that are due and queues itself again. A schedule fires
// once per due time even with several hubd processes: moving its next
// firing is a compare-and-set.

const kindSchedule = "actions.schedule"

// cronSchedules are the cron expressions of a workflow's schedule:.
func (p *parsed) cronSchedules() []string {
	n := p.wf.RawOn
	if n.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "schedule" || n.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range n.Content[i+1].Content {
			var e struct {
				Cron string `yaml:"cron"`
			}
			if item.Decode(&e) == nil && e.Cron != "" {
				out = append(out, e.Cron)
			}
		}
	}
	return out
}

// nextFiring is a cron expression's first time after t (false: invalid).
func nextFiring(expr string, t time.Time) (time.Time, bool) {
	sc, err := cron.ParseStandard(expr)
	if err != nil {
		return time.Time{}, false
	}
	n := sc.Next(t.UTC())
	return n, !n.IsZero()
}

// syncWorkflows records the default branch's workflow files (path →
// name) and their schedules.
func (s *Service) syncWorkflows(ctx context.Context, tx store.Q, repoID int64, found map[string]string, files map[string][]byte) error {
	if err := tx.SyncWorkflows(ctx, repoID, found); err != nil {
		return err
	}
	now := tx.Now()
	var list []store.Schedule
	earliest := time.Time{}
	for _, p := range sortedKeys(files) {
		w, err := parseWorkflow(p, files[p])
		if err != nil {
			continue
		}
		for _, c := range w.cronSchedules() {
			next, ok := nextFiring(c, now)
			if !ok {
				continue
			}
			list = append(list, store.Schedule{RepoID: repoID, Path: p, Cron: c, NextAt: next})
			if earliest.IsZero() || next.Before(earliest) {
				earliest = next
			}
		}
	}
	if err := tx.SetSchedules(ctx, repoID, list); err != nil {
		return err
	}
	if earliest.IsZero() {
		return nil
	}
	return jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindSchedule, Key: kindSchedule, Delay: max(earliest.Sub(now), time.Second)})
}

// handleSchedule fires the schedules that are due and queues the next
// wake-up.
func (s *Service) handleSchedule(ctx context.Context, _ []byte) error {
	now := s.Store.Now()
	due, err := s.Store.Background().DueSchedules(ctx, now, 200)
	if err != nil {
		return err
	}
	for _, sc := range due {
		next, ok := nextFiring(sc.Cron, now)
		if !ok {
			next = now.Add(24 * time.Hour)
		}
		var took bool
		if err := s.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			took, err = tx.AdvanceSchedule(ctx, sc.ID, sc.NextAt, next)
			return err
		}); err != nil {
			return err
		}
		if !took {
			continue // another process fired it
		}
		if err := s.fireSchedule(ctx, sc); err != nil {
			slog.Warn("actions: schedule", "repo", sc.RepoID, "workflow", sc.Path, "err", err)
		}
	}
	at, err := s.Store.Background().NextScheduleAt(ctx)
	if err != nil || at.IsZero() {
		return err
	}
	return s.Queue.Enqueue(ctx, jobs.Job{Kind: kindSchedule, Key: kindSchedule, Delay: max(at.Sub(s.Store.Now()), time.Second)})
}

// fireSchedule runs a scheduled workflow on the default branch's head.
func (s *Service) fireSchedule(ctx context.Context, sc store.Schedule) error {
	v, err := s.Store.R().RepoByID(ctx, sc.RepoID, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	repo := v.Repo
	g := s.Git.Open(repo.ID)
	ref := "refs/heads/" + repo.DefaultBranch
	sha, err := g.ResolveRef(ctx, ref+"^{commit}")
	if err != nil {
		return nil
	}
	_, src, err := g.Read(ctx, sha+":"+sc.Path, maxWorkflowFile)
	if errors.Is(err, gitrepo.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	w, err := parseWorkflow(sc.Path, src)
	if err != nil {
		return nil
	}
	still := false
	for _, c := range w.cronSchedules() {
		still = still || c == sc.Cron
	}
	if !still {
		return nil
	}
	var actor int64
	if repo.Owner != nil {
		actor = repo.Owner.ID
	}
	_, err = s.createRun(ctx, repo, sc.Path, src, w, nil, trigger{Event: "schedule", Ref: ref, SHA: sha, ActorID: actor,
		Payload: map[string]any{"schedule": sc.Cron}})
	return err
}

// wakeSchedules queues the schedules' wake-up when there are schedules (a
// process starting makes sure a lost wake-up does not stop them).
func (s *Service) wakeSchedules(ctx context.Context) {
	at, err := s.Store.R().NextScheduleAt(ctx)
	if err != nil || at.IsZero() {
		return
	}
	_ = s.Queue.Enqueue(ctx, jobs.Job{Kind: kindSchedule, Key: kindSchedule, Delay: max(at.Sub(s.Store.Now()), time.Second)})
}

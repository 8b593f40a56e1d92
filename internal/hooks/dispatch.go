package hooks

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// batch is how many outbox events one dispatch pass reads.
const batch = 200

// gapLife is how long the dispatcher waits for an event id it passed to
// commit: longer than any write transaction runs.
const gapLife = 10 * time.Minute

// Retention is how long the delivery log keeps a delivery (and its
// payload, for redelivery).
const Retention = 30 * 24 * time.Hour

// Start runs the dispatcher in the background until ctx ends or the store
// is closed. Several hubd processes may run one each: the cursor only
// moves for one of them.
func (s *Service) Start(ctx context.Context) {
	s.startOnce.Do(func() { go s.loop(ctx) })
}

// Wake makes the dispatcher look at the outbox now (a hook was created or
// activated in this process).
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) loop(ctx context.Context) {
	var lastExpire time.Time
	for ctx.Err() == nil {
		n, active, err := s.Dispatch(ctx)
		wait := s.Idle
		switch {
		case err != nil && (ctx.Err() != nil || strings.Contains(err.Error(), "is closed")):
			return
		case errors.Is(err, store.ErrHookCursorMoved):
			continue // another process dispatched these: read on
		case err != nil:
			slog.Warn("webhook dispatcher", "err", err)
			wait = 5 * s.Poll
		case n > 0:
			continue
		case active:
			wait = s.Poll
		}
		if active && time.Since(lastExpire) > time.Minute {
			lastExpire = time.Now()
			if err := s.expire(ctx); err != nil {
				slog.Warn("webhook dispatcher: expire", "err", err)
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// expire forgets old gaps and deliveries older than Retention (a bounded
// number per call, so no transaction grows large).
func (s *Service) expire(ctx context.Context) error {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.ExpireHookGaps(ctx, tx.Now().Add(-gapLife)); err != nil {
			return err
		}
		_, err := tx.ExpireHookDeliveries(ctx, tx.Now().Add(-Retention), 1000)
		return err
	})
	return err
}

// withInstallation adds the installation object of an app's delivery to a
// payload (a JSON object).
func withInstallation(body []byte, id int64) []byte {
	inst := `{"installation":{"id":` + strconv.FormatInt(id, 10) + `,"node_id":"` + wire.NodeID("IN", id) + `"}`
	rest := bytes.TrimPrefix(bytes.TrimSpace(body), []byte("{"))
	if len(bytes.TrimSpace(rest)) > 1 {
		inst += ","
	}
	return append([]byte(inst), rest...)
}

// queued is one payload and the hooks it goes to.
type queued struct {
	b     *built
	hooks []*model.Hook
}

// Dispatch handles the next batch of outbox events: it builds the
// payloads of those some active hook subscribed to and, in one
// transaction, stores them, queues their deliveries and moves the cursor
// past the batch. It reports how many events it handled and whether any
// hook is active.
func (s *Service) Dispatch(ctx context.Context) (int, bool, error) {
	q := s.Store.R()
	floor, active, err := q.HookFloor(ctx)
	if err != nil || !active {
		return 0, false, err
	}
	cur, err := q.HookCursor(ctx)
	if err != nil {
		return 0, true, err
	}
	from := max(cur, floor)
	events, err := q.EventsAfter(ctx, from, batch)
	if err != nil {
		return 0, true, err
	}
	late, err := q.HookGapEvents(ctx)
	if err != nil {
		return 0, true, err
	}
	if len(events) == 0 && len(late) == 0 {
		if from != cur {
			// Nothing happened since the oldest hook: skip what came before it.
			err := s.Store.Tx(ctx, func(tx store.Q) error {
				_, err := tx.MoveHookCursor(ctx, cur, from)
				return err
			})
			return 0, true, err
		}
		return 0, true, nil
	}
	// Ids the batch skips belong to transactions that have not committed
	// (PostgreSQL numbers rows before commit) or rolled back: remember
	// them and deliver those that show up later.
	var missing []int64
	to, prev := from, from
	for _, e := range events {
		for id := prev + 1; id < e.ID && len(missing) < 1000; id++ {
			missing = append(missing, id)
		}
		prev, to = e.ID, e.ID
	}
	all := append(late, events...)
	var repoIDs, orgIDs []int64
	seenRepo, seenOrg := map[int64]bool{}, map[int64]bool{}
	for _, e := range all {
		if e.RepoID != 0 && !seenRepo[e.RepoID] {
			seenRepo[e.RepoID] = true
			repoIDs = append(repoIDs, e.RepoID)
		}
		if e.OrgID != 0 && !seenOrg[e.OrgID] {
			seenOrg[e.OrgID] = true
			orgIDs = append(orgIDs, e.OrgID)
		}
	}
	hooks, err := q.ActiveHooks(ctx, repoIDs, orgIDs, nil)
	if err != nil {
		return 0, true, err
	}
	apps, err := q.AppHookTargets(ctx, repoIDs)
	if err != nil {
		return 0, true, err
	}
	b := s.newBuilder()
	var out []queued
	for _, e := range all {
		var mine []*model.Hook
		for _, h := range hooks {
			if h.SinceEvent < e.ID && (h.RepoID != 0 && h.RepoID == e.RepoID || h.OrgID != 0 && h.OrgID == e.OrgID) {
				mine = append(mine, h)
			}
		}
		var installed []store.AppHookTarget
		for _, t := range apps {
			if t.RepoID == e.RepoID && t.Hook.SinceEvent < e.ID {
				installed = append(installed, t)
			}
		}
		if len(mine) == 0 && len(installed) == 0 {
			continue
		}
		pairs, err := b.resolve(ctx, e)
		if err != nil {
			return 0, true, err
		}
		for _, p := range pairs {
			var subs []*model.Hook
			for _, h := range mine {
				if h.Wants(p.event) {
					subs = append(subs, h)
				}
			}
			// An app gets the events its installation subscribed to.
			var appSubs []store.AppHookTarget
			for _, t := range installed {
				if slices.Contains(t.Events, p.event) {
					appSubs = append(appSubs, t)
				}
			}
			if len(subs) == 0 && len(appSubs) == 0 {
				continue
			}
			bt, err := b.build(ctx, e, p.event, p.action)
			if errors.Is(err, errSkip) {
				logSkip(e, err)
				continue
			}
			if err != nil {
				return 0, true, err
			}
			if len(subs) > 0 {
				out = append(out, queued{bt, subs})
			}
			for _, t := range appSubs {
				ib := *bt
				ib.body, ib.installationID = withInstallation(bt.body, t.InstallationID), t.InstallationID
				out = append(out, queued{&ib, []*model.Hook{t.Hook}})
			}
		}
	}
	var kick map[int64]bool
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		ok, err := tx.MoveHookCursor(ctx, cur, to)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrHookCursorMoved
		}
		for _, e := range late {
			took, err := tx.TakeHookGap(ctx, e.ID)
			if err != nil {
				return err
			}
			if !took {
				return store.ErrHookCursorMoved
			}
		}
		if err := tx.AddHookGaps(ctx, missing); err != nil {
			return err
		}
		kick = map[int64]bool{}
		for _, it := range out {
			p := &model.HookPayload{Event: it.b.event, Action: it.b.action, Body: it.b.body}
			if err := tx.InsertHookPayload(ctx, p); err != nil {
				return err
			}
			for _, h := range it.hooks {
				d := &model.HookDelivery{HookID: h.ID, PayloadID: p.ID, GUID: GUID(), Event: p.Event, Action: p.Action,
					RepoID: it.b.repoID, InstallationID: it.b.installationID}
				if err := tx.InsertHookDelivery(ctx, d); err != nil {
					return err
				}
				if !kick[h.ID] {
					kick[h.ID] = true
					if err := enqueueDeliver(ctx, tx, h.ID); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, true, err
	}
	if len(kick) > 0 {
		s.Jobs.Notify() // the delivery jobs were queued in the transaction
	}
	return len(all), true, nil
}

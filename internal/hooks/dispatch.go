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
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// batch is how many outbox events one dispatch pass reads.
const batch = 200

// Retention is how long the delivery log keeps a delivery (and its
// payload, for redelivery).
const Retention = 30 * 24 * time.Hour

// Consumer is the dispatcher's name among the outbox consumers.
const Consumer = "hooks"

// Start runs the dispatcher (an outbox consumer) in the background until
// ctx ends or the store is closed. Several hubd processes may run one
// each: the outbox cursor only moves for one of them.
func (s *Service) Start(ctx context.Context) {
	s.consumer.Start(ctx)
}

// Wake makes the dispatcher look at the outbox now (a hook was created or
// activated in this process).
func (s *Service) Wake() {
	s.consumer.Wake()
}

// step is one pass of the dispatcher: dispatch the next batch and, once a
// minute while hooks are active, forget deliveries older than Retention.
// It polls at the outbox's pace while hooks are active, Idle otherwise.
func (s *Service) step(ctx context.Context) (int, time.Duration, error) {
	n, active, err := s.Dispatch(ctx)
	if err != nil || n > 0 {
		return n, 0, err
	}
	if !active {
		return 0, s.Idle, nil
	}
	if time.Since(s.lastExpire) > time.Minute {
		s.lastExpire = time.Now()
		if err := s.expire(ctx); err != nil {
			slog.Warn("webhook dispatcher: expire", "err", err)
		}
	}
	return 0, s.Poll, nil
}

// expire forgets deliveries older than Retention (a bounded number per
// call, so no transaction grows large).
func (s *Service) expire(ctx context.Context) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		_, err := tx.ExpireHookDeliveries(ctx, tx.Now().Add(-Retention), 1000)
		return err
	})
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

// appEvent builds the payloads of an installation event for its app's
// hook (the app gets them whatever its installation subscribed to).
func (b *builder) appEvent(ctx context.Context, e model.Event, hooks []*model.Hook) ([]queued, error) {
	appID := parse(e).int("app_id")
	var to []*model.Hook
	for _, h := range hooks {
		if h.AppID != 0 && h.AppID == appID && h.SinceEvent < e.ID {
			to = append(to, h)
		}
	}
	if len(to) == 0 {
		return nil, nil
	}
	pairs, err := b.resolve(ctx, e)
	if err != nil {
		return nil, err
	}
	var out []queued
	for _, p := range pairs {
		bt, err := b.build(ctx, e, p.event, p.action)
		if errors.Is(err, errSkip) {
			logSkip(e, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, queued{bt, to})
	}
	return out, nil
}

// repoHookGets says whether repository and organization hooks get an
// action: as GitHub documents, they get check runs created and completed
// and check suites completed; requests and rerequests are for apps.
func repoHookGets(event, action string) bool {
	switch event {
	case "check_run":
		return action == "created" || action == "completed"
	case "check_suite":
		return action == "completed"
	}
	return true
}

// checkOwner is the app a check event is for alone: check run and suite
// rerequests (and a run's requested action) go to the app of the run or
// suite, as on GitHub; -1 for every other event, and for checks no app
// owns (made with a user's token: every subscribed app gets them).
func checkOwner(e model.Event, p pair) int64 {
	switch {
	case p.event == "check_run" && (p.action == "rerequested" || p.action == "requested_action"),
		p.event == "check_suite" && p.action == "rerequested":
		if id := parse(e).int("app_id"); id != 0 {
			return id
		}
	}
	return -1
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
	q := s.Store.Background()
	floor, active, err := q.HookFloor(ctx)
	if err != nil || !active {
		return 0, false, err
	}
	bt, err := s.consumer.Read(ctx, floor, batch)
	if err != nil {
		return 0, true, err
	}
	if len(bt.Events) == 0 {
		if bt.Moves() {
			// Nothing happened since the oldest hook: skip what came before it.
			return 0, true, s.Store.Tx(ctx, func(tx store.Q) error { return bt.Commit(ctx, tx) })
		}
		return 0, true, nil
	}
	all := bt.Events
	b := s.newBuilder()
	var repoIDs, orgIDs, appIDs []int64
	seenRepo, seenOrg, seenApp := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	for i, e := range all {
		if e.OrgID == 0 && e.RepoID != 0 && strings.HasPrefix(e.Type, "workflow_") {
			// Actions records its run and job events without the
			// organization: organization hooks get them too.
			r, err := b.repo(ctx, e.RepoID)
			if err == nil && r.Owner.IsOrg() {
				all[i].OrgID, e.OrgID = r.Owner.ID, r.Owner.ID
			}
		}
		if appOnly(e.Type) {
			if id := parse(e).int("app_id"); id != 0 && !seenApp[id] {
				seenApp[id] = true
				appIDs = append(appIDs, id)
			}
			continue
		}
		if e.RepoID != 0 && !seenRepo[e.RepoID] {
			seenRepo[e.RepoID] = true
			repoIDs = append(repoIDs, e.RepoID)
		}
		if e.OrgID != 0 && !seenOrg[e.OrgID] {
			seenOrg[e.OrgID] = true
			orgIDs = append(orgIDs, e.OrgID)
		}
	}
	hooks, err := q.ActiveHooks(ctx, repoIDs, orgIDs, appIDs)
	if err != nil {
		return 0, true, err
	}
	apps, err := q.AppHookTargets(ctx, repoIDs)
	if err != nil {
		return 0, true, err
	}
	// An organization's own events (no repository) reach the apps
	// installed on it.
	var orgOnly []int64
	for _, e := range all {
		if e.RepoID == 0 && e.OrgID != 0 && !appOnly(e.Type) && !slices.Contains(orgOnly, e.OrgID) {
			orgOnly = append(orgOnly, e.OrgID)
		}
	}
	orgApps, err := q.AppOrgHookTargets(ctx, orgOnly)
	if err != nil {
		return 0, true, err
	}
	var out []queued
	for _, e := range all {
		if appOnly(e.Type) {
			it, err := b.appEvent(ctx, e, hooks)
			if err != nil {
				return 0, true, err
			}
			out = append(out, it...)
			continue
		}
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
		for _, t := range orgApps {
			if e.RepoID == 0 && t.OrgID == e.OrgID && t.Hook.SinceEvent < e.ID {
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
				if h.Wants(p.event) && repoHookGets(p.event, p.action) {
					subs = append(subs, h)
				}
			}
			// An app gets the events its installation subscribed to;
			// reruns of checks go to the app the checks belong to.
			owner := checkOwner(e, p)
			var appSubs []store.AppHookTarget
			for _, t := range installed {
				if slices.Contains(t.Events, p.event) && (owner < 0 || t.Hook.AppID == owner) {
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
		if err := bt.Commit(ctx, tx); err != nil {
			return err
		}
		kick = map[int64]bool{}
		for _, it := range out {
			p := &model.HookPayload{Event: it.b.event, Action: it.b.action, Body: it.b.body}
			if err := tx.InsertHookPayload(ctx, p); err != nil {
				return err
			}
			for _, h := range it.hooks {
				d := &model.HookDelivery{HookID: h.ID, PayloadID: p.ID, GUID: randid.UUID(), Event: p.Event, Action: p.Action,
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

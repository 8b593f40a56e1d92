// Package hooks is the webhook service: repository, organization and app
// hooks with their config, and their deliveries. Deliveries never run on
// the request path: a dispatcher reads the events outbox in order (its
// cursor moves in the transaction that queues the deliveries, so a
// restart neither loses nor repeats an event), builds each event's payload
// once from the current state with the wire converters, and queues one
// delivery per subscribed hook; a job of the durable queue per hook posts
// them, signed, and records the request and the answer. Pings, tests and
// redeliveries queue deliveries directly. GitHub does not retry a failed
// delivery on its own; hubd does (Attempts, RetryBackoff), each retry a
// redelivery of the same GUID in the delivery log. A delivery is sent at
// most once on its own: it is marked begun, committed, before it is sent,
// and one found begun and unrecorded is logged as Interrupted.
package hooks

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/randid"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Service is the webhook service.
type Service struct {
	Store   *store.Store
	Jobs    *jobs.Queue
	URLs    wire.URLs
	Git     *gitrepo.Manager
	Version string
	Policy  Policy
	// PullDetails loads the head repositories and owners of pull requests
	// (the pulls service's Details); ReviewersOf their requested
	// reviewers. nil: pull request payloads are not built.
	PullDetails func(ctx context.Context, list []*model.Pull, viewerID int64) error
	ReviewersOf func(ctx context.Context, issueIDs []int64) (map[int64][]*model.Account, error)
	// CommitUsers maps commit emails (lower case) to their users (status
	// payloads' commit); JobLabels gives the runs-on labels of a run's
	// jobs by key (the actions service's Labels). nil: none.
	CommitUsers func(ctx context.Context, emails []string) (map[string]*model.Account, error)
	JobLabels   func(run *model.WorkflowRun) map[string][]string
	// License is the license object of a detected license key (nil or
	// returning nil: none).
	License func(key string) *wire.LicenseSimple
	// Outbox runs the dispatcher as one of its consumers: it wakes after
	// every commit of this process that appended events.
	Outbox *outbox.Outbox
	// Poll is how often the dispatcher looks at the outbox for other
	// processes' events while hooks are active; Idle how often it looks
	// for active hooks otherwise.
	Poll, Idle time.Duration

	client, insecure *http.Client
	consumer         *outbox.Consumer
	lastExpire       time.Time
}

// Client is the delivery client (insecure: it skips TLS verification):
// it connects only where the delivery policy allows. The audit log's
// streams send through it too.
func (s *Service) Client(insecure bool) *http.Client {
	if insecure {
		return s.insecure
	}
	return s.client
}

// New prepares the service and registers its job handler.
func New(s *Service) *Service {
	s.client, s.insecure = newClients(s.Policy)
	if s.Poll == 0 {
		s.Poll = time.Second
	}
	if s.Idle == 0 {
		s.Idle = 10 * time.Second
	}
	if s.Jobs != nil {
		s.Jobs.Handle(jobDeliver, s.runDeliver)
		// A delivery job runs no process of its own, and what its
		// stopped run had begun is recorded as begun: it may resume
		// at once after a crash.
		s.Jobs.TakeBack(jobDeliver)
	}
	s.consumer = s.Outbox.Register(Consumer, false, s.step)
	return s
}

// Target is what hooks are installed on: a repository (with its owner),
// an organization or an app.
type Target struct {
	Repo *model.Repo
	Org  *model.Account
	App  *model.App
}

func (t Target) store() store.HookTarget {
	switch {
	case t.Repo != nil:
		return store.HookTarget{RepoID: t.Repo.ID}
	case t.Org != nil:
		return store.HookTarget{OrgID: t.Org.ID}
	}
	return store.HookTarget{AppID: t.App.ID}
}

// eventScope is the repository and organization of a hook's domain
// events.
func (t Target) eventScope() (repoID, orgID int64) {
	switch {
	case t.Repo != nil:
		if t.Repo.Owner != nil && t.Repo.Owner.IsOrg() {
			orgID = t.Repo.Owner.ID
		}
		return t.Repo.ID, orgID
	case t.Org != nil:
		return 0, t.Org.ID
	}
	return 0, 0
}

// Get is hook id of t.
func (s *Service) Get(ctx context.Context, t Target, id int64) (*model.Hook, error) {
	return s.Store.R().HookOf(ctx, t.store(), id)
}

// List is one page of t's hooks and their count.
func (s *Service) List(ctx context.Context, t Target, limit, offset int) ([]*model.Hook, int, error) {
	return s.Store.R().ListHooks(ctx, t.store(), limit, offset)
}

// Create makes a hook on t and pings it, as GitHub does.
func (s *Service) Create(ctx context.Context, t Target, actor *model.Account, in Input) (*model.Hook, error) {
	if err := checkName(in.Name); err != nil {
		return nil, err
	}
	if in.Config == nil {
		return nil, errNoURL
	}
	h := &model.Hook{Name: "web", Active: true, Events: []string{"push"}}
	st := t.store()
	h.RepoID, h.OrgID, h.AppID = st.RepoID, st.OrgID, st.AppID
	if actor != nil {
		h.CreatorID = actor.ID
	}
	if err := s.applyConfig(h, in.Config, false); err != nil {
		return nil, err
	}
	if in.Events != nil {
		ev, err := checkEvents(*in.Events)
		if err != nil {
			return nil, err
		}
		h.Events = ev
	}
	if in.Active != nil {
		h.Active = *in.Active
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := noOverlap(ctx, tx, t, h); err != nil {
			return err
		}
		if err := tx.CreateHook(ctx, h); err != nil {
			return err
		}
		if err := s.appendEvent(ctx, tx, t, actor, "hook.created", h); err != nil {
			return err
		}
		return s.queuePing(ctx, tx, t, h, actor)
	})
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify() // the delivery job was queued in the transaction
	s.Wake()
	return h, nil
}

// noOverlap refuses a second hook of t with the same URL and an event in
// common, as GitHub does.
func noOverlap(ctx context.Context, tx store.Q, t Target, h *model.Hook) error {
	same, err := tx.HooksWithURL(ctx, t.store(), h.URL)
	if err != nil {
		return err
	}
	for _, o := range same {
		if o.ID == h.ID {
			continue
		}
		for _, e := range h.Events {
			if o.Wants(e) || e == "*" {
				where := "repository"
				if t.Org != nil {
					where = "organization"
				}
				return custom("", "Hook already exists on this "+where)
			}
		}
	}
	return nil
}

func (s *Service) appendEvent(ctx context.Context, tx store.Q, t Target, actor *model.Account, typ string, h *model.Hook) error {
	repoID, orgID := t.eventScope()
	var actorID int64
	if actor != nil {
		actorID = actor.ID
	}
	return tx.AppendEvent(ctx, typ, actorID, repoID, orgID, map[string]any{"hook_id": h.ID, "active": h.Active, "events": h.Events})
}

// Update changes a hook (PATCH of the hook): a config given replaces the
// config, events replace the events, add_events and remove_events edit
// them.
func (s *Service) Update(ctx context.Context, t Target, actor *model.Account, id int64, in Input) (*model.Hook, error) {
	if err := checkName(in.Name); err != nil {
		return nil, err
	}
	var h *model.Hook
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if h, err = tx.HookOf(ctx, t.store(), id); err != nil {
			return err
		}
		if in.Config != nil {
			if err := s.applyConfig(h, in.Config, false); err != nil {
				return err
			}
		}
		if in.Events != nil {
			if h.Events, err = checkEvents(*in.Events); err != nil {
				return err
			}
		}
		if len(in.AddEvents) > 0 {
			add, err := checkEvents(in.AddEvents)
			if err != nil {
				return err
			}
			h.Events, _ = checkEvents(append(h.Events, add...))
		}
		if len(in.RemoveEvents) > 0 {
			h.Events = slices.DeleteFunc(h.Events, func(e string) bool { return slices.Contains(in.RemoveEvents, e) })
		}
		if in.Active != nil {
			h.Active = *in.Active
		}
		if err := noOverlap(ctx, tx, t, h); err != nil {
			return err
		}
		if err := tx.UpdateHook(ctx, h); err != nil {
			return err
		}
		return s.appendEvent(ctx, tx, t, actor, "hook.edited", h)
	})
	if err != nil {
		return nil, err
	}
	s.Wake()
	return h, nil
}

// UpdateConfig changes some of a hook's config (PATCH .../config): what
// is not sent stays.
func (s *Service) UpdateConfig(ctx context.Context, t Target, actor *model.Account, id int64, in ConfigInput) (*model.Hook, error) {
	var h *model.Hook
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if h, err = tx.HookOf(ctx, t.store(), id); err != nil {
			return err
		}
		if err := s.applyConfig(h, &in, true); err != nil {
			return err
		}
		if err := tx.UpdateHook(ctx, h); err != nil {
			return err
		}
		return s.appendEvent(ctx, tx, t, actor, "hook.edited", h)
	})
	return h, err
}

// Delete removes a hook with its deliveries.
func (s *Service) Delete(ctx context.Context, t Target, actor *model.Account, id int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		h, err := tx.HookOf(ctx, t.store(), id)
		if err != nil {
			return err
		}
		if err := tx.DeleteHook(ctx, h.ID); err != nil {
			return err
		}
		return s.appendEvent(ctx, tx, t, actor, "hook.deleted", h)
	})
}

// Ping sends a ping event to a hook (active or not, as GitHub does).
func (s *Service) Ping(ctx context.Context, t Target, actor *model.Account, id int64) error {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		h, err := tx.HookOf(ctx, t.store(), id)
		if err != nil {
			return err
		}
		return s.queuePing(ctx, tx, t, h, actor)
	})
	if err == nil {
		s.Jobs.Notify() // the delivery job was queued in the transaction
	}
	return err
}

// Test sends the repository's latest push to a hook subscribed to push;
// otherwise (or without any push) nothing, and no error.
func (s *Service) Test(ctx context.Context, t Target, actor *model.Account, id int64) error {
	h, err := s.Get(ctx, t, id)
	if err != nil {
		return err
	}
	if t.Repo == nil || !h.Wants("push") {
		return nil
	}
	e, err := s.Store.R().LatestPushEvent(ctx, t.Repo.ID)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	b := s.newBuilder()
	built, err := b.build(ctx, *e, "push", "")
	if err != nil {
		return err
	}
	if built == nil {
		return nil
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		p := &model.HookPayload{Event: "push", Body: built.body}
		if err := tx.InsertHookPayload(ctx, p); err != nil {
			return err
		}
		d := &model.HookDelivery{HookID: h.ID, PayloadID: p.ID, GUID: randid.UUID(), Event: "push", RepoID: t.Repo.ID}
		if err := tx.InsertHookDelivery(ctx, d); err != nil {
			return err
		}
		return enqueueDeliver(ctx, tx, h.ID)
	})
	if err == nil {
		s.Jobs.Notify() // the delivery job was queued in the transaction
	}
	return err
}

// Redeliver sends a delivery of a hook again: a new attempt with the same
// GUID and payload, marked as a redelivery.
func (s *Service) Redeliver(ctx context.Context, t Target, hookID, deliveryID int64) error {
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		h, err := tx.HookOf(ctx, t.store(), hookID)
		if err != nil {
			return err
		}
		d, err := tx.HookDeliveryByID(ctx, h.ID, deliveryID)
		if err != nil {
			return err
		}
		again := &model.HookDelivery{HookID: h.ID, PayloadID: d.PayloadID, GUID: d.GUID, Event: d.Event, Action: d.Action,
			RepoID: d.RepoID, InstallationID: d.InstallationID, Redelivery: true}
		if err := tx.InsertHookDelivery(ctx, again); err != nil {
			return err
		}
		return enqueueDeliver(ctx, tx, h.ID)
	})
	if err == nil {
		s.Jobs.Notify() // the delivery job was queued in the transaction
	}
	return err
}

// Deliveries is a page of a hook's deliveries, newest first, below the
// delivery id before (0: from the newest); more says whether another page
// follows.
func (s *Service) Deliveries(ctx context.Context, t Target, hookID, before int64, status string, limit int) ([]*model.HookDelivery, bool, error) {
	h, err := s.Get(ctx, t, hookID)
	if err != nil {
		return nil, false, err
	}
	return s.Store.R().ListHookDeliveries(ctx, store.HookDeliveryQuery{HookID: h.ID, Before: before, Status: status, Limit: limit})
}

// Delivery is one delivery of a hook with its request and response.
func (s *Service) Delivery(ctx context.Context, t Target, hookID, id int64) (*model.Hook, *model.HookDelivery, error) {
	h, err := s.Get(ctx, t, hookID)
	if err != nil {
		return nil, nil, err
	}
	d, err := s.Store.R().HookDeliveryByID(ctx, h.ID, id)
	return h, d, err
}

// AppHook is an app's webhook (model.ErrNotFound before its config was
// first set).
func (s *Service) AppHook(ctx context.Context, app *model.App) (*model.Hook, error) {
	list, _, err := s.Store.R().ListHooks(ctx, store.HookTarget{AppID: app.ID}, 1, 0)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// UpdateAppConfig changes an app's webhook config, making the webhook on
// its first config (which then needs a url) and pinging it. An app's
// webhook gets the events its installations subscribed to.
func (s *Service) UpdateAppConfig(ctx context.Context, app *model.App, in ConfigInput) (*model.Hook, error) {
	t := Target{App: app}
	h, err := s.AppHook(ctx, app)
	if errors.Is(err, model.ErrNotFound) {
		h := &model.Hook{AppID: app.ID, Name: "web", Active: true, Events: []string{"*"}}
		if err := s.applyConfig(h, &in, false); err != nil {
			return nil, err
		}
		if in.ContentType == nil {
			h.ContentType = "json"
		}
		err := s.Store.Tx(ctx, func(tx store.Q) error {
			if err := tx.CreateHook(ctx, h); err != nil {
				return err
			}
			if err := s.appendEvent(ctx, tx, t, nil, "hook.created", h); err != nil {
				return err
			}
			// GitHub pings an app's webhook when its URL is first set.
			return s.queuePing(ctx, tx, t, h, nil)
		})
		if err != nil {
			return nil, err
		}
		s.Jobs.Notify() // the ping's delivery job was queued in the transaction
		s.Wake()
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	return s.UpdateConfig(ctx, t, nil, h.ID, in)
}

package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// The hook cursor moves only from where a dispatcher read it, deleting a
// hook drops the payloads only it used, and old deliveries expire with
// their payloads.
func TestHookStore(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return now })
	org := &model.Account{Login: "acme", Type: model.TypeOrganization}
	var a, b *model.Hook
	var shared, own *model.HookPayload
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, org); err != nil {
			return err
		}
		a = &model.Hook{OrgID: org.ID, Name: "web", Active: true, Events: []string{"push"}, URL: "https://example.com/a", ContentType: "json", InsecureSSL: "0"}
		b = &model.Hook{OrgID: org.ID, Name: "web", Active: false, Events: []string{"*"}, URL: "https://example.com/b", ContentType: "form", InsecureSSL: "0"}
		for _, h := range []*model.Hook{a, b} {
			if err := tx.CreateHook(ctx, h); err != nil {
				return err
			}
		}
		shared = &model.HookPayload{Event: "push", Body: []byte(`{"ref":"x"}`)}
		own = &model.HookPayload{Event: "ping", Body: []byte(`{"zen":"z"}`)}
		for _, p := range []*model.HookPayload{shared, own} {
			if err := tx.InsertHookPayload(ctx, p); err != nil {
				return err
			}
		}
		for _, d := range []*model.HookDelivery{
			{HookID: a.ID, PayloadID: shared.ID, GUID: "g1", Event: "push"},
			{HookID: b.ID, PayloadID: shared.ID, GUID: "g2", Event: "push"},
			{HookID: a.ID, PayloadID: own.ID, GUID: "g3", Event: "ping"},
		} {
			if err := tx.InsertHookDelivery(ctx, d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	q := s.R()
	if floor, ok, err := q.HookFloor(ctx); err != nil || !ok || floor != a.SinceEvent {
		t.Errorf("floor %d %v %v", floor, ok, err)
	}
	if list, err := q.ActiveHooks(ctx, nil, []int64{org.ID}, nil); err != nil || len(list) != 1 || list[0].ID != a.ID {
		t.Errorf("active hooks %v %v", list, err)
	}
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.EnsureOutboxCursor(ctx, "hooks", false) }); err != nil {
		t.Fatal(err)
	}
	cur, err := q.OutboxCursor(ctx, "hooks")
	if err != nil {
		t.Fatal(err)
	}
	err = s.Tx(ctx, func(tx store.Q) error {
		if ok, err := tx.MoveOutboxCursor(ctx, "hooks", cur, cur+5); err != nil || !ok {
			t.Errorf("move: %v %v", ok, err)
		}
		if ok, err := tx.MoveOutboxCursor(ctx, "hooks", cur, cur+9); err != nil || ok {
			t.Errorf("a stale move succeeded: %v %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Deliveries: pending in order with payloads; recorded once.
	pend, err := q.PendingHookDeliveries(ctx, a.ID, 10)
	if err != nil || len(pend) != 2 || pend[0].GUID != "g1" || string(pend[1].Payload) != `{"zen":"z"}` {
		t.Fatalf("pending %v %v", pend, err)
	}
	for _, d := range pend {
		d.Status, d.StatusCode, d.DeliveredAt, d.Duration = "OK", 200, now, 1500*time.Microsecond
		d.RequestHeaders, d.ResponseHeaders = map[string]string{"X": "1"}, map[string]string{}
	}
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.RecordHookDeliveries(ctx, a.ID, pend, "OK") }); err != nil {
		t.Fatal(err)
	}
	list, more, err := q.ListHookDeliveries(ctx, store.HookDeliveryQuery{HookID: a.ID, Limit: 1})
	if err != nil || len(list) != 1 || !more || list[0].GUID != "g3" || list[0].Duration != 1500*time.Microsecond {
		t.Fatalf("list %v %v %v", list, more, err)
	}
	if h, _ := q.HookByID(ctx, a.ID); h.LastCode == nil || *h.LastCode != 200 || h.LastStatus != "active" {
		t.Errorf("last response %+v", h)
	}

	// Deleting b keeps the shared payload (a still uses it).
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.DeleteHook(ctx, b.ID) }); err != nil {
		t.Fatal(err)
	}
	if d, err := q.HookDeliveryByID(ctx, a.ID, pend[0].ID); err != nil || string(d.Payload) != `{"ref":"x"}` {
		t.Errorf("shared payload after deleting b: %v %v", d, err)
	}
	// Thirty-one days later both of a's deliveries expire, payloads too.
	now = now.Add(31 * 24 * time.Hour)
	var n int
	if err := s.Tx(ctx, func(tx store.Q) error {
		var err error
		n, err = tx.ExpireHookDeliveries(ctx, now.Add(-30*24*time.Hour), 100)
		return err
	}); err != nil || n != 2 {
		t.Fatalf("expired %d: %v", n, err)
	}
	if p, d, err := q.HookDeliveryCounts(ctx); err != nil || p+d != 0 {
		t.Errorf("deliveries left: %d %d %v", p, d, err)
	}
	// The payloads went with them: a delivery can no longer name one.
	for _, p := range []*model.HookPayload{shared, own} {
		err := s.Tx(ctx, func(tx store.Q) error {
			return tx.InsertHookDelivery(ctx, &model.HookDelivery{HookID: a.ID, PayloadID: p.ID, GUID: "g4", Event: p.Event})
		})
		if err == nil {
			t.Errorf("payload %d (%s) survived its deliveries", p.ID, p.Event)
		}
	}
}

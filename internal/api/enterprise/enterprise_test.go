package enterprise_test

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	svc "github.com/hubd/hubd/internal/enterprise"
)

func TestAnnouncementBanner(t *testing.T) {
	e := apitest.New(t)
	tok := e.Token(e.Admin, "admin:enterprise")
	read := e.Token(e.Admin, "read:enterprise")
	_, plain := e.NewUser("amy", false)
	b := "/enterprises/hubd/announcement"

	var got map[string]any
	e.Must(200, "GET", b, read, nil).JSON(t, &got)
	if got["announcement"] != nil || got["expires_at"] != nil || got["user_dismissible"] != false {
		t.Fatalf("no banner = %v", got)
	}
	e.Must(200, "PATCH", b, tok, map[string]any{"announcement": "Maintenance **tonight**", "expires_at": "2099-01-02T03:04:05Z",
		"user_dismissible": true}).JSON(t, &got)
	if got["announcement"] != "Maintenance **tonight**" || got["expires_at"] != "2099-01-02T03:04:05Z" || got["user_dismissible"] != true {
		t.Fatalf("set = %v", got)
	}
	e.Must(200, "GET", b, read, nil).JSON(t, &got)
	if got["announcement"] != "Maintenance **tonight**" || got["expires_at"] != "2099-01-02T03:04:05Z" {
		t.Fatalf("get = %v", got)
	}
	shown, err := svc.New(e.Store).ShownAnnouncement(context.Background(), time.Now())
	if err != nil || shown == nil || shown.Message != "Maintenance **tonight**" {
		t.Fatalf("shown = %+v %v", shown, err)
	}
	if s, _ := svc.New(e.Store).ShownAnnouncement(context.Background(), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)); s != nil {
		t.Fatalf("expired banner shown: %+v", s)
	}
	// Validation leaves the banner as it was.
	e.Must(422, "PATCH", b, tok, map[string]any{"announcement": ""})
	e.Must(422, "PATCH", b, tok, map[string]any{"expires_at": "2099-01-02T03:04:05Z"})
	e.Must(422, "PATCH", b, tok, map[string]any{"announcement": "x", "expires_at": "tomorrow"})
	e.Must(422, "PATCH", b, tok, map[string]any{"announcement": "x", "expires_at": "2001-01-01T00:00:00Z"})
	e.Must(200, "GET", b, read, nil).JSON(t, &got)
	if got["announcement"] != "Maintenance **tonight**" {
		t.Fatalf("after refused writes = %v", got)
	}
	// Empty or null expires_at never expires; user_dismissible defaults false.
	e.Must(200, "PATCH", b, tok, map[string]any{"announcement": "Hello", "expires_at": ""}).JSON(t, &got)
	if got["expires_at"] != nil || got["user_dismissible"] != false {
		t.Fatalf("never expiring = %v", got)
	}
	// Enterprise owners only, with the right scope.
	e.Must(401, "GET", b, "", nil)
	e.Must(403, "GET", b, plain, nil)
	e.Must(403, "PATCH", b, read, map[string]any{"announcement": "x"})
	e.Must(404, "GET", "/enterprises/other/announcement", read, nil)

	e.Must(204, "DELETE", b, tok, nil)
	e.Must(200, "GET", b, read, nil).JSON(t, &got)
	if got["announcement"] != nil {
		t.Fatalf("after delete = %v", got)
	}
	e.Must(204, "DELETE", b, tok, nil)
}

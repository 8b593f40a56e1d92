package rest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/hubd/hubd/internal/rest"
)

// A client that goes away is not an internal error: nothing is logged as
// one, and a client too slow for a deadline gets a 408 instead of a 500.
func TestWriteErrorClientGone(t *testing.T) {
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		status   int // 0: nothing written
		internal bool
	}{
		{"context canceled", canceled, fmt.Errorf("query: %w", context.Canceled), 0, false},
		{"broken pipe", context.Background(), fmt.Errorf("write: %w", syscall.EPIPE), 0, false},
		{"connection reset", context.Background(), fmt.Errorf("read: %w", syscall.ECONNRESET), 0, false},
		{"unexpected EOF after the client left", canceled, io.ErrUnexpectedEOF, 0, false},
		{"read deadline", context.Background(), fmt.Errorf("read body: %w", os.ErrDeadlineExceeded), 408, false},
		{"canceled but the client is still there", context.Background(), context.Canceled, 500, true},
		{"a real failure", context.Background(), errors.New("disk on fire"), 500, true},
	} {
		logs.Reset()
		r := httptest.NewRequest("GET", "/x", nil).WithContext(tc.ctx)
		w := httptest.NewRecorder()
		rest.WriteError(w, r, tc.err)
		wrote := w.Code
		if w.Body.Len() == 0 && w.Code == http.StatusOK {
			wrote = 0
		}
		if wrote != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, wrote, tc.status)
		}
		if got := strings.Contains(logs.String(), "internal error"); got != tc.internal {
			t.Errorf("%s: logged as internal error = %v: %s", tc.name, got, logs.String())
		}
	}
}

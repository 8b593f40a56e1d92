package refs

import (
	"testing"

	"github.com/hubd/hubd/internal/model"
)

// TestBranchName: a linked branch's default name, as GitHub makes it.
func TestBranchName(t *testing.T) {
	for _, c := range []struct {
		number int64
		title  string
		want   string
	}{
		{1, "First bug", "1-first-bug"},
		{12, "Fix: the `login` page!", "12-fix-the-login-page"},
		{3, "  Émigré  café -- 2024 ", "3-émigré-café-2024"},
		{4, "!!!", "4"},
	} {
		if got := BranchName(&model.Issue{Number: c.number, Title: c.title}); got != c.want {
			t.Errorf("%d %q: %q, want %q", c.number, c.title, got, c.want)
		}
	}
}

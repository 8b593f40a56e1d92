package markdown

import (
	"context"
	"strings"
	"testing"
)

func TestAutolinks(t *testing.T) {
	set := EncodeAutolinks([]Autolink{
		{Prefix: "JIRA-", Template: "https://jira.test/browse/JIRA-<num>", Alphanumeric: true},
		{Prefix: "T", Template: "https://t.test/?id=<num>&x=1"},
		{Prefix: "TK-", Template: "https://tk.test/<num>"},
	})
	cases := []struct{ src, want string }{
		{"See JIRA-123 now", `See <a href="https://jira.test/browse/JIRA-123">JIRA-123</a> now`},
		{"see jira-AB-12.", `see <a href="https://jira.test/browse/JIRA-AB-12">jira-AB-12</a>.`},
		{"T42 and T4x and xT42", `<a href="https://t.test/?id=42&amp;x=1">T42</a> and T4x and xT42`},
		{"TK-7", `<a href="https://tk.test/7">TK-7</a>`},
		{"`JIRA-1` and [JIRA-2](http://x.test)", `<code>JIRA-1</code> and <a href="http://x.test" rel="nofollow">JIRA-2</a>`},
		{"JIRA- alone", `JIRA- alone`},
	}
	for _, c := range cases {
		got, err := Render(context.Background(), c.src, Options{Autolinks: set})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: %s\nwant it to contain %s", c.src, got, c.want)
		}
	}
	// Without the set nothing links, even when the same text was rendered
	// with it before (the cache keys on the set).
	if got := HTML("See JIRA-123 now"); strings.Contains(got, "<a") {
		t.Errorf("without autolinks: %s", got)
	}
}

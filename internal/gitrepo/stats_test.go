package gitrepo

import (
	"bufio"
	"strings"
	"testing"
)

func TestParseStats(t *testing.T) {
	out := "\x00Mona Lisa\x00mona@example.com\x001717236000 +0200\n\n3\t1\ta.txt\n-\t-\tlogo.png\n2\t0\t\"we\\tird\"\n" +
		"\x00Hubot\x00hubot@example.com\x001717236001 -0700\n" + // an empty commit
		"\x00Old\x00old@example.com\x00100 +0000\n\n1\t1\tb.txt\n"
	var got []CommitStat
	err := parseStats(bufio.NewReader(strings.NewReader(out)), func(c *CommitStat) error {
		got = append(got, *c)
		return nil
	})
	if err != nil || len(got) != 3 {
		t.Fatalf("%v %v", got, err)
	}
	if c := got[0]; c.Name != "Mona Lisa" || c.Email != "mona@example.com" || c.Additions != 5 || c.Deletions != 1 || c.When.Unix() != 1717236000 {
		t.Fatalf("first: %+v", c)
	}
	if _, off := got[0].When.Zone(); off != 7200 {
		t.Fatalf("zone: %d", off)
	}
	if c := got[1]; c.Additions != 0 || c.Deletions != 0 || c.Email != "hubot@example.com" {
		t.Fatalf("empty commit: %+v", c)
	}
	if c := got[2]; c.Additions != 1 || c.Deletions != 1 || c.When.Unix() != 100 {
		t.Fatalf("last: %+v", c)
	}
	if err := parseStats(bufio.NewReader(strings.NewReader("\x00bad header\n")), func(*CommitStat) error { return nil }); err == nil {
		t.Fatal("a malformed header must fail")
	}
}

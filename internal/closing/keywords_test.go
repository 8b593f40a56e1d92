package closing

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	const web = "http://hub.test"
	cases := []struct {
		text string
		want []Ref
	}{
		{"Fixes #1", []Ref{{Number: 1}}},
		{"fixes: #2 and CLOSES #3, resolved #4", []Ref{{Number: 2}, {Number: 3}, {Number: 4}}},
		{"close #5\nfix #6\nfixed #7\nresolve #8\nresolves #9\nclosed #10\nCloses: #11", []Ref{{Number: 5}, {Number: 6}, {Number: 7}, {Number: 8}, {Number: 9}, {Number: 10}, {Number: 11}}},
		{"Fixes Mona/Hello#12", []Ref{{"mona", "hello", 12}}},
		{"fixes http://hub.test/mona/other/issues/13", []Ref{{"mona", "other", 13}}},
		{"fixes https://elsewhere.test/mona/other/issues/14", nil},
		{"prefixes #15 and suffix#16 and mentions #17", nil},
		{"fixes #0 and fixes #1 and fixes #1", []Ref{{Number: 1}}},
		{"fixing #18", nil},
		{"`Fix #19`", []Ref{{Number: 19}}},
	}
	for _, c := range cases {
		if got := Parse(c.text, web); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if got := Parse("fixes http://hub.test/mona/other/issues/13", ""); got != nil {
		t.Errorf("URL without a web base: %v", got)
	}
}

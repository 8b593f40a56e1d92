package codespaces

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{
  // a comment with "quotes" and a comma,
  "name": "a // not a comment",
  "containerEnv": {"A": "1",},
  /* block
     comment */
  "remoteEnv": {"B": "/* kept */"},
  "postCreateCommand": ["make", "setup",], // trailing
}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "a // not a comment" || cfg.ContainerEnv["A"] != "1" || cfg.RemoteEnv["B"] != "/* kept */" {
		t.Fatalf("%+v", cfg)
	}
	cmds, err := Commands(cfg.PostCreateCommand)
	if err != nil || !reflect.DeepEqual(cmds, [][]string{{"make", "setup"}}) {
		t.Fatalf("%v %v", cmds, err)
	}
}

func TestCommands(t *testing.T) {
	for _, c := range []struct {
		in   string
		want [][]string
	}{
		{`"echo hi"`, [][]string{{"/bin/sh", "-c", "echo hi"}}},
		{`["npm", "ci"]`, [][]string{{"npm", "ci"}}},
		{`{"b": "two", "a": ["one"]}`, [][]string{{"one"}, {"/bin/sh", "-c", "two"}}},
		{`""`, nil},
		{`null`, nil},
	} {
		got, err := Commands(json.RawMessage(c.in))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v %v, want %v", c.in, got, err, c.want)
		}
	}
	if _, err := Commands(json.RawMessage(`42`)); err == nil {
		t.Error("a number is no command")
	}
}

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

// forwardPorts: numbers and the codespace's own "localhost:N" /
// "127.0.0.1:N", in order without repeats; another host's port and what is
// not a port are warned about, not forwarded.
func TestForwardPorts(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"forwardPorts": [3000, "localhost:8080", 3000, "127.0.0.1:9000", "db:5432", 0, 70000, 1.5, "x", true]}`))
	if err != nil {
		t.Fatal(err)
	}
	ports, warnings := cfg.Ports()
	if !reflect.DeepEqual(ports, []int{3000, 8080, 9000}) {
		t.Errorf("ports %v", ports)
	}
	if len(warnings) != 6 {
		t.Errorf("warnings %q (want one each for db:5432, 0, 70000, 1.5, \"x\" and true)", warnings)
	}
	if p, w := (&Config{}).Ports(); p != nil || w != nil {
		t.Errorf("no forwardPorts: %v %v", p, w)
	}
}

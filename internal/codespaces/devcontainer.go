package codespaces

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
)

// Devcontainer is one devcontainer.json of a repository.
type Devcontainer struct {
	Path, Name, Display string
}

// maxConfig bounds the devcontainer.json read.
const maxConfig = 1 << 20

// Devcontainers lists the devcontainer.json files of commit: those GitHub
// reads (.devcontainer/devcontainer.json, .devcontainer.json and
// .devcontainer/<name>/devcontainer.json), in that order, with the name
// each declares.
func Devcontainers(ctx context.Context, g *gitrepo.Repo, commit string) ([]Devcontainer, error) {
	var paths []string
	var nested []string
	err := g.LsTree(ctx, commit, true, func(e gitrepo.LsTreeEntry) bool {
		if e.Type != "blob" {
			return true
		}
		switch {
		case e.Path == ".devcontainer/devcontainer.json", e.Path == ".devcontainer.json":
			paths = append(paths, e.Path)
		case strings.HasPrefix(e.Path, ".devcontainer/") && strings.Count(e.Path, "/") == 2 && path.Base(e.Path) == "devcontainer.json":
			nested = append(nested, e.Path)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(paths, func(i, j int) bool { return paths[i] > paths[j] }) // .devcontainer/ first
	sort.Strings(nested)
	out := []Devcontainer{}
	for _, p := range append(paths, nested...) {
		cfg, _ := ReadConfig(ctx, g, commit, p)
		d := Devcontainer{Path: p, Name: cfg.Name}
		if d.Name == "" && strings.Count(p, "/") == 2 {
			d.Name = path.Base(path.Dir(p))
		}
		d.Display = d.Name
		if d.Display == "" {
			d.Display = "Default project configuration"
		}
		out = append(out, d)
	}
	return out, nil
}

// Config is what hubd uses of a devcontainer.json.
type Config struct {
	Name                 string            `json:"name"`
	ContainerEnv         map[string]string `json:"containerEnv"`
	RemoteEnv            map[string]string `json:"remoteEnv"`
	OnCreateCommand      json.RawMessage   `json:"onCreateCommand"`
	UpdateContentCommand json.RawMessage   `json:"updateContentCommand"`
	PostCreateCommand    json.RawMessage   `json:"postCreateCommand"`
	PostStartCommand     json.RawMessage   `json:"postStartCommand"`
	// ForwardPorts are the ports the codespace's IDE forwards (numbers, or
	// "host:port" strings; see Ports).
	ForwardPorts   []json.RawMessage `json:"forwardPorts"`
	Image          string            `json:"image"`
	Customizations struct {
		Codespaces struct {
			Repositories map[string]json.RawMessage `json:"repositories"`
		} `json:"codespaces"`
	} `json:"customizations"`
}

// ReadConfig reads and parses the devcontainer.json at p of commit (JSON
// with comments and trailing commas).
func ReadConfig(ctx context.Context, g *gitrepo.Repo, commit, p string) (Config, error) {
	var c Config
	_, data, err := g.Read(ctx, commit+":"+p, maxConfig)
	if err != nil {
		return c, err
	}
	return ParseConfig(data)
}

// ParseConfig parses a devcontainer.json.
func ParseConfig(data []byte) (Config, error) {
	var c Config
	if err := json.Unmarshal(StripJSONC(data), &c); err != nil {
		return c, fmt.Errorf("devcontainer.json: %v", err)
	}
	return c, nil
}

// StripJSONC turns JSON with comments (// and /* */) and trailing commas
// into JSON, keeping strings as they are.
func StripJSONC(in []byte) []byte {
	return dropTrailingCommas(dropComments(in))
}

// scanString copies the string starting at in[i] (a quote) and answers
// the index of its closing quote.
func scanString(out *bytes.Buffer, in []byte, i int) int {
	j := i + 1
	for j < len(in) && in[j] != '"' {
		if in[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(in) {
		j = len(in) - 1
	}
	out.Write(in[i : j+1])
	return j
}

func dropComments(in []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"':
			i = scanString(&out, in, i)
		case c == '/' && i+1 < len(in) && in[i+1] == '/':
			for i < len(in) && in[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && i+1 < len(in) && in[i+1] == '*':
			end := bytes.Index(in[i+2:], []byte("*/"))
			if end < 0 {
				return out.Bytes()
			}
			i += end + 3
			out.WriteByte(' ')
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

func dropTrailingCommas(in []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch c {
		case '"':
			i = scanString(&out, in, i)
		case ',':
			j := i + 1
			for j < len(in) && (in[j] == ' ' || in[j] == '\t' || in[j] == '\n' || in[j] == '\r') {
				j++
			}
			if j < len(in) && (in[j] == '}' || in[j] == ']') {
				continue
			}
			out.WriteByte(c)
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes()
}

// Commands reads a lifecycle command: a string runs in a shell, an array
// runs as it is, an object runs each of its commands (by name, in order).
func Commands(raw json.RawMessage) ([][]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		return [][]string{{"/bin/sh", "-c", s}}, nil
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		if len(argv) == 0 {
			return nil, nil
		}
		return [][]string{argv}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("a lifecycle command is a string, an array or an object")
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	var out [][]string
	for _, k := range names {
		c, err := Commands(obj[k])
		if err != nil {
			return nil, err
		}
		out = append(out, c...)
	}
	return out, nil
}

// Ports are the ports of forwardPorts the IDE forwards, in order without
// repeats, and a warning for each entry it does not: a codespace runs on
// its runner host's network, so only its own ports (a number, or
// "localhost:N" / "127.0.0.1:N") can be forwarded, not another host's.
func (c *Config) Ports() (ports []int, warnings []string) {
	seen := map[int]bool{}
	for _, raw := range c.ForwardPorts {
		port := 0
		var n float64
		var s string
		switch {
		case json.Unmarshal(raw, &n) == nil:
			if n == float64(int(n)) {
				port = int(n)
			}
		case json.Unmarshal(raw, &s) == nil:
			host, p, ok := strings.Cut(s, ":")
			if v, err := strconv.Atoi(p); ok && err == nil && (host == "localhost" || host == "127.0.0.1") {
				port = v
			} else if ok && err == nil {
				warnings = append(warnings, fmt.Sprintf("forwardPorts: %q is another host's port (a codespace forwards its own)", s))
				continue
			}
		}
		if port < 1 || port > 65535 {
			warnings = append(warnings, fmt.Sprintf("forwardPorts: %s is not a port", raw))
			continue
		}
		if !seen[port] {
			seen[port] = true
			ports = append(ports, port)
		}
	}
	return ports, warnings
}

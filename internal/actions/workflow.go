package actions

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	actmodel "github.com/nektos/act/pkg/model"
	"github.com/nektos/act/pkg/workflowpattern"
	"gopkg.in/yaml.v3"
)

// WorkflowDir is where a repository's workflow files live.
const WorkflowDir = ".github/workflows"

// IsWorkflowFile reports whether name (a file of WorkflowDir) is a workflow.
func IsWorkflowFile(name string) bool {
	return strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")
}

// parsed is a workflow file read for triggering and planning.
type parsed struct {
	wf       *actmodel.Workflow
	name     string
	on       map[string]*yaml.Node // event → its configuration (nil: none)
	perms    map[string]string     // permissions: (nil: the defaults)
	permsAll string                // permissions: read-all / write-all
}

// parseWorkflow reads a workflow file's YAML. The workflow's name falls
// back to its path, as on GitHub.
func parseWorkflow(p string, src []byte) (*parsed, error) {
	src = withoutSnapshot(src) // a key act does not know (snapshot.go)
	wf, err := actmodel.ReadWorkflow(bytes.NewReader(src), false)
	if err != nil {
		return nil, err
	}
	if wf == nil || len(wf.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs are defined", p)
	}
	wf.File = path.Base(p)
	out := &parsed{wf: wf, name: wf.Name, on: map[string]*yaml.Node{}}
	if out.name == "" {
		out.name = p
	}
	switch wf.RawOn.Kind {
	case yaml.ScalarNode:
		out.on[wf.RawOn.Value] = nil
	case yaml.SequenceNode:
		for _, n := range wf.RawOn.Content {
			out.on[n.Value] = nil
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(wf.RawOn.Content); i += 2 {
			v := wf.RawOn.Content[i+1]
			if v.Kind == yaml.MappingNode {
				out.on[wf.RawOn.Content[i].Value] = v
			} else {
				out.on[wf.RawOn.Content[i].Value] = nil
			}
		}
	default:
		return nil, fmt.Errorf("%s: no triggers are defined (on:)", p)
	}
	// permissions: is not in act's model; read it from the document.
	var doc struct {
		Permissions yaml.Node `yaml:"permissions"`
	}
	if err := yaml.Unmarshal(src, &doc); err == nil {
		switch doc.Permissions.Kind {
		case yaml.ScalarNode:
			out.permsAll = doc.Permissions.Value
		case yaml.MappingNode:
			out.perms = map[string]string{}
			_ = doc.Permissions.Decode(&out.perms)
		}
	}
	for id, j := range wf.Jobs {
		if j == nil {
			return nil, fmt.Errorf("%s: job %q is empty", p, id)
		}
		for _, n := range j.Needs() {
			if wf.Jobs[n] == nil {
				return nil, fmt.Errorf("%s: job %q needs %q, which does not exist", p, id, n)
			}
		}
	}
	return out, nil
}

// patterns reads a filter list (branches:, paths:, ...) of an event.
func patterns(n *yaml.Node, key string) ([]string, bool) {
	if n == nil {
		return nil, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			continue
		}
		v := n.Content[i+1]
		switch v.Kind {
		case yaml.ScalarNode:
			return []string{v.Value}, true
		case yaml.SequenceNode:
			var out []string
			for _, c := range v.Content {
				out = append(out, c.Value)
			}
			return out, true
		}
	}
	return nil, false
}

// skipBy reports whether inputs are filtered out by an include list (key)
// or an ignore list (key-ignore) of n; neither list present: not skipped.
func skipBy(n *yaml.Node, key string, inputs []string) bool {
	if inc, ok := patterns(n, key); ok {
		ps, err := workflowpattern.CompilePatterns(inc...)
		if err != nil || workflowpattern.Skip(ps, inputs, &workflowpattern.EmptyTraceWriter{}) {
			return true
		}
	}
	if ign, ok := patterns(n, key+"-ignore"); ok {
		ps, err := workflowpattern.CompilePatterns(ign...)
		if err != nil || workflowpattern.Filter(ps, inputs, &workflowpattern.EmptyTraceWriter{}) {
			return true
		}
	}
	return false
}

// pushTriggers reports whether a push of ref changing files triggers the
// workflow (files nil: unknown, paths filters then pass, as for a new
// branch on GitHub).
func (p *parsed) pushTriggers(ref string, files []string) bool {
	n, ok := p.on["push"]
	if !ok {
		return false
	}
	if n == nil {
		return true
	}
	_, hasBranches := patterns(n, "branches")
	_, hasBranchesIgnore := patterns(n, "branches-ignore")
	_, hasTags := patterns(n, "tags")
	_, hasTagsIgnore := patterns(n, "tags-ignore")
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		if !hasBranches && !hasBranchesIgnore && (hasTags || hasTagsIgnore) {
			return false // only tags are filtered: branches do not trigger
		}
		if skipBy(n, "branches", []string{b}) {
			return false
		}
	} else if t, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		if !hasTags && !hasTagsIgnore && (hasBranches || hasBranchesIgnore) {
			return false
		}
		if skipBy(n, "tags", []string{t}) {
			return false
		}
		return true // paths filters do not apply to tags
	} else {
		return false
	}
	if files != nil && skipBy(n, "paths", files) {
		return false
	}
	return true
}

// dispatchInput is a workflow_dispatch input's declaration.
type dispatchInput struct {
	Name     string
	Type     string // string (default), boolean, number, choice, environment
	Required bool
	Default  *string
	Options  []string
}

// dispatchInputs are the declared inputs of workflow_dispatch; ok is false
// when the workflow has no such trigger.
func (p *parsed) dispatchInputs() ([]dispatchInput, bool) {
	n, ok := p.on["workflow_dispatch"]
	if !ok {
		return nil, false
	}
	if n == nil {
		return nil, true
	}
	var cfg struct {
		Inputs yaml.Node `yaml:"inputs"`
	}
	if err := n.Decode(&cfg); err != nil || cfg.Inputs.Kind != yaml.MappingNode {
		return nil, true
	}
	var out []dispatchInput
	for i := 0; i+1 < len(cfg.Inputs.Content); i += 2 {
		in := dispatchInput{Name: cfg.Inputs.Content[i].Value, Type: "string"}
		var raw struct {
			Type     string    `yaml:"type"`
			Required bool      `yaml:"required"`
			Default  yaml.Node `yaml:"default"`
			Options  []string  `yaml:"options"`
		}
		_ = cfg.Inputs.Content[i+1].Decode(&raw)
		if raw.Type != "" {
			in.Type = raw.Type
		}
		in.Required, in.Options = raw.Required, raw.Options
		if raw.Default.Kind == yaml.ScalarNode {
			d := raw.Default.Value
			in.Default = &d
		}
		out = append(out, in)
	}
	return out, true
}

// plannedJob is a job of a run to create: one per matrix combination.
type plannedJob struct {
	Key    string
	Name   string
	Matrix map[string]any
	Needs  []string
}

// planJobs expands the workflow's jobs (and their matrices) in a stable
// order: by dependency depth, then key.
func (p *parsed) planJobs() ([]plannedJob, error) {
	depth := map[string]int{}
	var depthOf func(k string, seen map[string]bool) (int, error)
	depthOf = func(k string, seen map[string]bool) (int, error) {
		if d, ok := depth[k]; ok {
			return d, nil
		}
		if seen[k] {
			return 0, fmt.Errorf("job %q: circular needs", k)
		}
		seen[k] = true
		d := 0
		for _, n := range p.wf.Jobs[k].Needs() {
			nd, err := depthOf(n, seen)
			if err != nil {
				return 0, err
			}
			d = max(d, nd+1)
		}
		depth[k] = d
		return d, nil
	}
	keys := make([]string, 0, len(p.wf.Jobs))
	for k := range p.wf.Jobs {
		if _, err := depthOf(k, map[string]bool{}); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if depth[keys[i]] != depth[keys[j]] {
			return depth[keys[i]] < depth[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var out []plannedJob
	for _, k := range keys {
		j := p.wf.Jobs[k]
		name := j.Name
		if name == "" || strings.Contains(name, "${{") {
			name = k
		}
		var combos []map[string]any
		if j.Strategy != nil && j.Strategy.RawMatrix.Kind == yaml.MappingNode && !strings.Contains(nodeText(&j.Strategy.RawMatrix), "${{") {
			m, err := j.GetMatrixes()
			if err != nil {
				return nil, fmt.Errorf("job %q: %w", k, err)
			}
			combos = m
		}
		if len(combos) == 0 || (len(combos) == 1 && len(combos[0]) == 0) {
			out = append(out, plannedJob{Key: k, Name: name, Needs: j.Needs()})
			continue
		}
		for _, c := range combos {
			out = append(out, plannedJob{Key: k, Name: name + " (" + comboLabel(c) + ")", Matrix: c, Needs: j.Needs()})
		}
	}
	return out, nil
}

func nodeText(n *yaml.Node) string {
	b, _ := yaml.Marshal(n)
	return string(b)
}

// comboLabel is GitHub's "1, linux" suffix of a matrix job's name: the
// values in the order of the keys.
func comboLabel(c map[string]any) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = fmt.Sprint(c[k])
	}
	return strings.Join(vals, ", ")
}

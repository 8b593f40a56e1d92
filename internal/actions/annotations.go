package actions

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Annotations, as on GitHub: the ::error::, ::warning:: and ::notice::
// workflow commands a step prints, and the error that fails a step,
// become annotations of the job's check run. The worker writes each into
// the log as "##[level key=value;...]message" (annotationLine); hubd reads
// them back from the stored log when the job ends (JobAnnotations), at
// most 10 of each level per step and 50 per job, as GitHub keeps.

const (
	maxStepAnnotations = 10 // of each level, per step
	maxJobAnnotations  = 50
)

// exitCode is act's error for a step whose process failed (container or
// host executor), shown as GitHub's runner words it.
var exitCode = regexp.MustCompile(`^(?:exitcode '(\d+)': failure|exit status (\d+))$`)

var logEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ";", "%3B", "]", "%5D")
var logUnescaper = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3B", ";", "%5D", "]", "%25", "%")

// annotationLine renders act's log entry of an annotation command (its
// fields: command, kvPairs, arg) as the log line hubd reads back.
func annotationLine(data map[string]any) (string, bool) {
	cmd, _ := data["command"].(string)
	if cmd != "error" && cmd != "warning" && cmd != "notice" {
		return "", false
	}
	arg, _ := data["arg"].(string)
	kv, _ := data["kvPairs"].(map[string]string)
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("##[" + cmd)
	for i, k := range keys {
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteByte(';')
		}
		b.WriteString(logEscaper.Replace(k) + "=" + logEscaper.Replace(kv[k]))
	}
	b.WriteString("]" + strings.NewReplacer("\r", "", "\n", "%0A").Replace(arg))
	return b.String(), true
}

var annotationRe = regexp.MustCompile(`^##\[(error|warning|notice)(?: ([^\]]*))?\](.*)$`)

// levels are the annotation levels of the commands.
var levels = map[string]string{"error": "failure", "warning": "warning", "notice": "notice"}

// JobAnnotations reads the annotations of a job's log.
func JobAnnotations(log string, steps []model.WorkflowStep) []model.CheckAnnotation {
	parts := SplitStepLogs(log, steps)
	if len(parts) == 0 && log != "" {
		parts = []StepLog{{Text: log}}
	}
	var out []model.CheckAnnotation
	for _, p := range parts {
		count := map[string]int{}
		for _, line := range strings.Split(p.Text, "\n") {
			if stamped([]byte(line)) {
				line = line[len(stampLayout)+1:]
			}
			m := annotationRe.FindStringSubmatch(strings.TrimRight(line, "\r"))
			if m == nil {
				continue
			}
			if count[m[1]] >= maxStepAnnotations {
				continue
			}
			if len(out) >= maxJobAnnotations {
				return out
			}
			count[m[1]]++
			out = append(out, annotation(levels[m[1]], m[2], strings.ReplaceAll(m[3], "%0A", "\n")))
		}
	}
	return out
}

// annotation makes one from a command's properties (file, line, endLine,
// col, endColumn, title); one without a file is on ".github", line 1, as
// GitHub's are.
func annotation(level, props, msg string) model.CheckAnnotation {
	kv := map[string]string{}
	if props != "" {
		for _, p := range strings.Split(props, ";") {
			k, v, _ := strings.Cut(p, "=")
			kv[logUnescaper.Replace(k)] = logUnescaper.Replace(v)
		}
	}
	num := func(keys ...string) *int {
		for _, k := range keys {
			if n, err := strconv.Atoi(kv[k]); err == nil && n > 0 {
				return &n
			}
		}
		return nil
	}
	a := model.CheckAnnotation{Path: ".github", StartLine: 1, EndLine: 1, AnnotationLevel: level, Message: msg}
	if f := kv["file"]; f != "" {
		a.Path = strings.TrimPrefix(f, "./")
	}
	if n := num("line"); n != nil {
		a.StartLine, a.EndLine = *n, *n
	}
	if n := num("endLine", "end_line"); n != nil && *n >= a.StartLine {
		a.EndLine = *n
	}
	if a.StartLine == a.EndLine {
		a.StartColumn = num("col")
		a.EndColumn = num("endColumn", "end_column")
		if a.StartColumn != nil && a.EndColumn == nil {
			a.EndColumn = a.StartColumn
		}
	}
	if t := kv["title"]; t != "" {
		a.Title = &t
	}
	return a
}

package actions

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/hubd/hubd/internal/model"
)

// The run's log zip holds, as GitHub's does, "<n>_<job name>.txt" with a
// job's whole log and a "<job name>/" folder with one file per step,
// "<step number>_<step title>.txt" (gh run view --log labels each line
// with its step from these; --log-failed keeps the failed steps' files).

// LogName is a job's name as the zip's file and folder names carry it:
// without "/" and ":", cut to 90 UTF-16 code units and trimmed, as
// GitHub's log service writes it (and as clients look for it).
func LogName(job string) string {
	s := strings.NewReplacer("/", "", ":", "").Replace(job)
	if u := utf16.Encode([]rune(s)); len(u) > 90 {
		s = string(utf16.Decode(u[:90]))
	}
	return strings.TrimSpace(s)
}

// StepLog is the part of a job's log one step wrote.
type StepLog struct {
	Number int
	Title  string // "Set up job", "Run actions/checkout@v4"
	Text   string
}

// stepTitle is the title of a step's group in the log.
func stepTitle(name string) string {
	if name == "Set up job" || name == "Complete job" {
		return name
	}
	return "Run " + name
}

// SplitStepLogs cuts a job's log at its steps' groups: step n starts at
// the line "##[group]<title of step n>" that follows step n-1's start;
// what comes before the first step's group belongs to it, and a pre or
// post step's lines belong to the step before them. Steps that wrote
// nothing get no part.
func SplitStepLogs(log string, steps []model.WorkflowStep) []StepLog {
	if len(steps) == 0 || log == "" {
		return nil
	}
	out := make([]StepLog, 0, len(steps))
	cur := -1 // index in steps of the step whose lines these are
	var b strings.Builder
	flush := func() {
		i := max(cur, 0)
		if b.Len() > 0 {
			out = append(out, StepLog{Number: steps[i].Number, Title: stepTitle(steps[i].Name), Text: b.String()})
		}
		b.Reset()
	}
	for rest := log; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		body := line
		if stamped([]byte(line)) {
			body = line[len(stampLayout)+1:]
		}
		if next := cur + 1; next < len(steps) {
			if g, ok := strings.CutPrefix(strings.TrimRight(body, "\r\n"), "##[group]"); ok && g == stepTitle(steps[next].Name) {
				if cur >= 0 {
					flush()
				}
				cur = next
			}
		}
		b.WriteString(line)
	}
	flush()
	return out
}

// StepLogFile is a step's file name in a job's folder of the zip.
func StepLogFile(s StepLog) string {
	return strconv.Itoa(s.Number) + "_" + strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(s.Title) + ".txt"
}

package actions_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

const annotateWorkflow = `name: Lint
on: push
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - name: report
        run: |
          echo "::error file=src/app.js,line=3,endLine=5,title=Bad code::Missing semicolon"
          echo "::warning file=src/app.js,line=7,col=2,endColumn=9::Unused variable"
          echo "::notice::Just so you know"
          for i in $(seq 1 12); do echo "::warning::many $i"; done
      - name: break
        run: exit 4
`

// Workflow commands (::error::, ::warning::, ::notice::) and a failed step
// are annotations of the job's check run, whose id is the job's, at most
// 10 of a level per step (GitHub's caps), read through go-github.
func TestJobAnnotations(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "lint", map[string]string{".github/workflows/lint.yml": annotateWorkflow})
	run := f.waitRun(t, head, true)
	j := f.jobs(t, run.GetID())["lint"]
	if j == nil || j.GetConclusion() != "failure" {
		t.Fatalf("job %+v", j)
	}
	cr, _, err := f.gh.Checks.GetCheckRun(ctx, "mona", "app", j.GetID())
	if err != nil || cr.GetName() != "lint" || cr.GetConclusion() != "failure" || cr.GetOutput().GetAnnotationsCount() != 13 {
		t.Fatalf("check run %+v %v", cr, err)
	}
	list, _, err := f.gh.Checks.ListCheckRunAnnotations(ctx, "mona", "app", j.GetID(), &github.ListOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range list {
		got = append(got, fmt.Sprintf("%s %s:%d-%d c%d-%d %q %q", a.GetAnnotationLevel(), a.GetPath(), a.GetStartLine(), a.GetEndLine(),
			a.GetStartColumn(), a.GetEndColumn(), a.GetTitle(), a.GetMessage()))
	}
	want := []string{
		`failure src/app.js:3-5 c0-0 "Bad code" "Missing semicolon"`,
		`warning src/app.js:7-7 c2-9 "" "Unused variable"`,
		`notice .github:1-1 c0-0 "" "Just so you know"`,
	}
	for i := 1; i <= 9; i++ { // 10 warnings a step
		want = append(want, fmt.Sprintf(`warning .github:1-1 c0-0 "" "many %d"`, i))
	}
	want = append(want, `failure .github:1-1 c0-0 "" "Process completed with exit code 4."`)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The log keeps each command as a "##[level properties]message" line.
	if l := f.jobLog(t, j.GetID()); !strings.Contains(l, " ##[error endLine=5;file=src/app.js;line=3;title=Bad code]Missing semicolon\n") ||
		!strings.Contains(l, " ##[error]Process completed with exit code 4.\n") {
		t.Errorf("log:\n%s", l)
	}
}

package checks

import (
	"testing"
	"time"

	"github.com/hubd/hubd/internal/model"
)

func TestSuiteState(t *testing.T) {
	run := func(status, conclusion string) [2]string { return [2]string{status, conclusion} }
	for _, tc := range []struct {
		name       string
		runs       [][2]string
		status     string
		conclusion string
		ok         bool
	}{
		{"no runs keep the suite's own", nil, "", "", false},
		{"all queued", [][2]string{run("queued", ""), run("queued", "")}, "queued", "", true},
		{"one started", [][2]string{run("queued", ""), run("in_progress", "")}, "in_progress", "", true},
		{"some completed", [][2]string{run("queued", ""), run("completed", "success")}, "in_progress", "", true},
		{"all success", [][2]string{run("completed", "success"), run("completed", "success")}, "completed", "success", true},
		{"skipped below success", [][2]string{run("completed", "skipped"), run("completed", "success")}, "completed", "success", true},
		{"all skipped", [][2]string{run("completed", "skipped")}, "completed", "skipped", true},
		{"neutral above success", [][2]string{run("completed", "neutral"), run("completed", "success")}, "completed", "neutral", true},
		{"docs example", [][2]string{run("completed", "timed_out"), run("completed", "success"), run("completed", "neutral")}, "completed", "timed_out", true},
		{"timed_out above failure", [][2]string{run("completed", "failure"), run("completed", "timed_out")}, "completed", "timed_out", true},
		{"cancelled above timed_out", [][2]string{run("completed", "cancelled"), run("completed", "timed_out")}, "completed", "cancelled", true},
		{"action_required first", [][2]string{run("completed", "cancelled"), run("completed", "action_required")}, "completed", "action_required", true},
	} {
		st, concl, ok := SuiteState(tc.runs)
		got := ""
		if concl != nil {
			got = *concl
		}
		if st != tc.status || got != tc.conclusion || ok != tc.ok {
			t.Errorf("%s: %s %s %v, want %s %s %v", tc.name, st, got, ok, tc.status, tc.conclusion, tc.ok)
		}
	}
}

func TestApply(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	// A conclusion completes a run and stamps completed_at.
	r := &model.CheckRun{Status: model.CheckInProgress}
	if err := apply(r, &RunInput{Conclusion: s("success")}, now); err != nil || r.Status != "completed" || r.CompletedAt == nil || !r.CompletedAt.Equal(now) {
		t.Errorf("conclusion: %+v %v", r, err)
	}
	// Back to in_progress drops the conclusion and completed_at.
	if err := apply(r, &RunInput{Status: s("in_progress")}, now); err != nil || r.Conclusion != nil || r.CompletedAt != nil {
		t.Errorf("requeue: %+v %v", r, err)
	}
	// Completed needs a conclusion, unless the run has one.
	if err := apply(&model.CheckRun{Status: "queued"}, &RunInput{Status: s("completed")}, now); err == nil {
		t.Error("completed without conclusion accepted")
	}
	done := &model.CheckRun{Status: "completed", Conclusion: s("failure"), CompletedAt: &now}
	if err := apply(done, &RunInput{Status: s("completed")}, now); err != nil || *done.Conclusion != "failure" {
		t.Errorf("completed again: %+v %v", done, err)
	}
	// Output fields replace; images replace; annotations are the store's.
	r = &model.CheckRun{Status: "queued", OutputTitle: s("old"), Images: []model.CheckImage{{Alt: "a"}}}
	if err := apply(r, &RunInput{Output: &Output{Summary: s("sum"), Images: []model.CheckImage{}}}, now); err != nil ||
		*r.OutputTitle != "old" || *r.OutputSummary != "sum" || len(r.Images) != 0 {
		t.Errorf("output: %+v %v", r, err)
	}
}

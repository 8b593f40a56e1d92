package rulesets_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/rulesets"
)

// commitBytes commits a file with the given content and returns the
// commit.
func commitBytes(t *testing.T, dir, file string, content []byte) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, dir, "add", file)
	mustGit(t, dir, "commit", "-q", "-m", "add "+file)
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", "HEAD"))
}

// Push rulesets are validated with GitHub's bounds and read back as they
// were given (the rulesets API and the branch rules).
func TestPushRulesetValidation(t *testing.T) {
	f := newFixture(t)
	push := func(rules ...map[string]any) map[string]any {
		return map[string]any{"name": "p", "target": "push", "enforcement": "active", "rules": rules}
	}
	rule := func(typ string, params map[string]any) map[string]any {
		return map[string]any{"type": typ, "parameters": params}
	}
	for name, body := range map[string]map[string]any{
		"size 0":           push(rule("max_file_size", map[string]any{"max_file_size": 0})),
		"size 101":         push(rule("max_file_size", map[string]any{"max_file_size": 101})),
		"length 0":         push(rule("max_file_path_length", map[string]any{"max_file_path_length": 0})),
		"paths missing":    push(map[string]any{"type": "file_path_restriction"}),
		"empty extension":  push(rule("file_extension_restriction", map[string]any{"restricted_file_extensions": []string{"*."}})),
		"branch rule":      push(map[string]any{"type": "deletion"}),
		"push rule on tag": {"name": "t", "target": "tag", "enforcement": "active", "rules": []any{rule("max_file_size", map[string]any{"max_file_size": 1})}},
		"ref_name": {"name": "p", "target": "push", "enforcement": "active",
			"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}}}},
		"pull_request bypass": {"name": "p", "target": "push", "enforcement": "active",
			"bypass_actors": []any{map[string]any{"actor_id": 5, "actor_type": "RepositoryRole", "bypass_mode": "pull_request"}}},
	} {
		if r := f.e.Do("POST", "/repos/mona/app/rulesets", f.token, body); r.StatusCode != 422 {
			t.Errorf("%s: %d %s", name, r.StatusCode, r.Body)
		}
	}

	rs := f.create(t, github.RepositoryRuleset{Name: "files", Target: github.Ptr(github.RulesetTargetPush), Enforcement: "active",
		Rules: &github.RepositoryRulesetRules{
			FilePathRestriction:      &github.FilePathRestrictionRuleParameters{RestrictedFilePaths: []string{"secrets/**"}},
			FileExtensionRestriction: &github.FileExtensionRestrictionRuleParameters{RestrictedFileExtensions: []string{"*.exe"}},
			MaxFilePathLength:        &github.MaxFilePathLengthRuleParameters{MaxFilePathLength: 40},
			MaxFileSize:              &github.MaxFileSizeRuleParameters{MaxFileSize: 1}}})
	got, _, err := f.gh.Repositories.GetRuleset(ctx, "mona", "app", rs.GetID(), false)
	if err != nil || *got.GetTarget() != github.RulesetTargetPush || got.Rules == nil || got.Rules.FilePathRestriction == nil ||
		got.Rules.FilePathRestriction.RestrictedFilePaths[0] != "secrets/**" || got.Rules.FileExtensionRestriction.RestrictedFileExtensions[0] != "*.exe" ||
		got.Rules.MaxFilePathLength.MaxFilePathLength != 40 || got.Rules.MaxFileSize.MaxFileSize != 1 {
		t.Fatalf("read back: %+v %v", got, err)
	}
	var list []map[string]any
	f.e.Must(200, "GET", "/repos/mona/app/rulesets?targets=push", f.token, nil).JSON(t, &list)
	if len(list) != 1 || list[0]["id"] != float64(rs.GetID()) {
		t.Fatalf("list of push rulesets: %v", list)
	}
	// A push ruleset's rules apply to every branch.
	br, _, err := f.gh.Repositories.ListRulesForBranch(ctx, "mona", "app", "feature", nil)
	if err != nil || len(br.FilePathRestriction) != 1 || len(br.MaxFileSize) != 1 || br.MaxFileSize[0].Parameters.MaxFileSize != 1 ||
		br.FilePathRestriction[0].RulesetID != rs.GetID() {
		t.Fatalf("branch rules: %+v %v", br, err)
	}
}

// A push ruleset refuses real git pushes that add restricted files (GH013
// with the files, nothing written), lets the bypass list through, records
// a bypass request for the others, and lets the same commit through once
// a member of the bypass list approves it.
func TestPushRulesEnforcedWithDelegatedBypass(t *testing.T) {
	f := newFixture(t)
	walt, waltTok := f.user(t, "walt", authz.Write)
	_, ritaTok := f.user(t, "rita", authz.Read)
	rs := f.create(t, github.RepositoryRuleset{Name: "files", Target: github.Ptr(github.RulesetTargetPush), Enforcement: "active",
		BypassActors: []*github.BypassActor{{ActorID: github.Ptr(int64(5)), ActorType: github.Ptr(github.BypassActorTypeRepositoryRole),
			BypassMode: github.Ptr(github.BypassModeAlways)}},
		Rules: &github.RepositoryRulesetRules{
			FilePathRestriction:      &github.FilePathRestrictionRuleParameters{RestrictedFilePaths: []string{"secrets"}},
			FileExtensionRestriction: &github.FileExtensionRestrictionRuleParameters{RestrictedFileExtensions: []string{"*.exe"}},
			MaxFilePathLength:        &github.MaxFilePathLengthRuleParameters{MaxFilePathLength: 40},
			MaxFileSize:              &github.MaxFileSizeRuleParameters{MaxFileSize: 1}}})

	w := f.clone(t, "walt", waltTok)
	base := strings.TrimSpace(mustGit(t, w, "rev-parse", "HEAD"))
	refused := func(what, reason string) string {
		t.Helper()
		out, err := git(t, w, "push", "origin", "HEAD:main")
		if err == nil || !strings.Contains(out, "remote: error: GH013: Repository rule violations found for refs/heads/main.") ||
			!strings.Contains(out, reason) || !strings.Contains(out, "[remote rejected]") {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		if got := f.remoteRef(t, "refs/heads/main"); got != base {
			t.Fatalf("%s: main moved to %s", what, got)
		}
		return out
	}
	// A clean push goes.
	base = commitBytes(t, w, "ok.txt", []byte("fine\n"))
	mustGit(t, w, "push", "-q", "origin", "HEAD:main")
	// Each rule refuses what it names; the files are listed.
	commitBytes(t, w, "secrets/deep/key.pem", []byte("k\n"))
	out := refused("restricted path", "Cannot push files at restricted file paths: secrets")
	if !strings.Contains(out, "secrets/deep/key.pem in ") || !strings.Contains(out, "/mona/app/exemptions/1") {
		t.Fatalf("path refusal names the file and the request: %s", out)
	}
	mustGit(t, w, "reset", "-q", "--hard", base)
	commitBytes(t, w, "bin/Tool.EXE", []byte("MZ\n"))
	refused("extension", "Cannot push files with restricted file extensions: *.exe")
	mustGit(t, w, "reset", "-q", "--hard", base)
	commitBytes(t, w, strings.Repeat("d/", 20)+"x.txt", []byte("x\n"))
	refused("path length", "Cannot push file paths longer than 40 characters.")
	mustGit(t, w, "reset", "-q", "--hard", base)
	commitBytes(t, w, "big.bin", make([]byte, 1<<20+1))
	refused("size", "Cannot push files larger than 1 MB.")
	// A file the push removes again is still pushed in its history.
	mustGit(t, w, "rm", "-q", "big.bin")
	mustGit(t, w, "commit", "-q", "-m", "drop it")
	refused("size in history", "Cannot push files larger than 1 MB.")
	// A merge brings in a side branch's restricted file.
	mustGit(t, w, "reset", "-q", "--hard", base)
	mustGit(t, w, "checkout", "-q", "-b", "side")
	commitBytes(t, w, "secrets/x", []byte("x\n"))
	mustGit(t, w, "checkout", "-q", "main")
	commitBytes(t, w, "other.txt", []byte("o\n"))
	mustGit(t, w, "merge", "-q", "--no-edit", "side")
	refused("merge", "secrets/x in ")
	// A deletion adds no file.
	mustGit(t, w, "push", "-q", "origin", ":feature")

	// Each refused commit recorded one request (a second refused push
	// of the same commit finds it again).
	mustGit(t, w, "reset", "-q", "--hard", base)
	exe := commitBytes(t, w, "run.exe", []byte("MZ\n"))
	out = refused("exe again", "run.exe in "+exe)
	refused("exe once more", "run.exe")
	var list []map[string]any
	f.e.Must(200, "GET", "/repos/mona/app/bypass-requests/push-rules?per_page=100", f.token, nil).JSON(t, &list)
	if len(list) != 7 {
		t.Fatalf("%d requests, want 7: %v", len(list), list)
	}
	newest := list[0]
	number := int64(newest["number"].(float64))
	if newest["resource_identifier"] != exe || newest["status"] != "pending" || newest["requester"].(map[string]any)["actor_name"] != "walt" ||
		!strings.Contains(out, "/mona/app/exemptions/"+strconv.FormatInt(number, 10)) {
		t.Fatalf("newest request: %v\n%s", newest, out)
	}
	data := newest["data"].([]any)[0].(map[string]any)
	if data["rule_type"] != "file_extension_restriction" || data["ruleset_id"] != float64(rs.GetID()) || data["total_violations"] != float64(1) {
		t.Fatalf("request data: %v", data)
	}
	// The requester sees their own; a reader sees none and finds none.
	f.e.Must(200, "GET", "/repos/mona/app/bypass-requests/push-rules", waltTok, nil).JSON(t, &list)
	if len(list) != 7 {
		t.Fatalf("requester sees %d", len(list))
	}
	f.e.Must(200, "GET", "/repos/mona/app/bypass-requests/push-rules", ritaTok, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("reader sees %d", len(list))
	}
	path := "/repos/mona/app/bypass-requests/push-rules/" + strconv.FormatInt(number, 10)
	f.e.Must(404, "GET", path, ritaTok, nil)
	f.e.Must(404, "GET", "/repos/mona/app/bypass-requests/push-rules/99", f.token, nil)
	f.e.Must(422, "GET", "/repos/mona/app/bypass-requests/push-rules?request_status=nope", f.token, nil)
	f.e.Must(200, "GET", "/repos/mona/app/bypass-requests/push-rules?request_status=approved", f.token, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("approved before any review: %d", len(list))
	}

	// The requester may not review it; the bypass list's member approves.
	s := svc.New(f.e.Store, nil)
	v, err := f.e.Store.R().RepoByID(ctx, f.repoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReviewBypassRequest(ctx, v.Repo, svc.Actor{UserID: walt.ID}, number, model.BypassRequestApproved); err == nil {
		t.Fatal("the requester reviewed their own request")
	}
	mona, err := f.e.Store.R().AccountByLogin(ctx, "mona")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReviewBypassRequest(ctx, v.Repo, svc.Actor{UserID: mona.ID}, number, model.BypassRequestApproved); err != nil {
		t.Fatal(err)
	}
	var one map[string]any
	f.e.Must(200, "GET", path, waltTok, nil).JSON(t, &one)
	if one["status"] != "approved" || len(one["responses"].([]any)) != 1 ||
		one["responses"].([]any)[0].(map[string]any)["reviewer"].(map[string]any)["actor_name"] != "mona" {
		t.Fatalf("approved request: %v", one)
	}
	f.e.Must(200, "GET", "/repos/mona/app/bypass-requests/push-rules?reviewer=mona", f.token, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("reviewer filter: %d", len(list))
	}
	// The approved commit goes through, once; the request is completed.
	if out, err := git(t, w, "push", "origin", "HEAD:main"); err != nil {
		t.Fatalf("approved push: %v\n%s", err, out)
	}
	if got := f.remoteRef(t, "refs/heads/main"); got != exe {
		t.Fatalf("main is %s after the approved push", got)
	}
	f.e.Must(200, "GET", path, f.token, nil).JSON(t, &one)
	if one["status"] != "completed" {
		t.Fatalf("after the push: %v", one["status"])
	}
	commitBytes(t, w, "again.exe", []byte("MZ\n"))
	refused2, err := git(t, w, "push", "origin", "HEAD:main")
	if err == nil || !strings.Contains(refused2, "GH013") {
		t.Fatalf("a new commit after the approval: %v\n%s", err, refused2)
	}

	// The admin is on the bypass list.
	m := f.clone(t, "mona", f.token)
	commitBytes(t, m, "secrets/admin.key", []byte("k\n"))
	if out, err := git(t, m, "push", "origin", "HEAD:main"); err != nil {
		t.Fatalf("bypass actor: %v\n%s", err, out)
	}
	// An evaluating ruleset refuses nothing.
	f.e.Must(200, "PUT", "/repos/mona/app/rulesets/"+strconv.FormatInt(rs.GetID(), 10), f.token, map[string]any{"enforcement": "evaluate"})
	mustGit(t, w, "pull", "-q", "--rebase", "origin", "main")
	if out, err := git(t, w, "push", "origin", "HEAD:main"); err != nil {
		t.Fatalf("evaluate: %v\n%s", err, out)
	}
}

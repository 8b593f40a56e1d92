package attestations_test

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

const provenance = "https://slsa.dev/provenance/v1"

type listed struct {
	Attestations []struct {
		Bundle       json.RawMessage `json:"bundle"`
		RepositoryID int64           `json:"repository_id"`
		BundleURL    string          `json:"bundle_url"`
		Initiator    string          `json:"initiator"`
	} `json:"attestations"`
}

// world is an organization octo (owner olga, member sam) with a public
// repository app and a private one secret, and an outsider zed.
type world struct {
	e                 *apitest.Env
	olgaT, samT, zedT string
	app, secret       *github.Repository
	sign              *signer
}

func newWorld(t *testing.T) *world {
	e := apitest.New(t)
	olga, olgaT := e.NewUser("olga", false)
	sam, samT := e.NewUser("sam", false)
	_, zedT := e.NewUser("zed", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: sam.ID, Role: model.RoleMember, State: store.StateActive})
	})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{e: e, olgaT: olgaT, samT: samT, zedT: zedT, sign: newSigner(t)}
	og := e.GitHub(olgaT)
	if w.app, _, err = og.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("app")}); err != nil {
		t.Fatal(err)
	}
	if w.secret, _, err = og.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return w
}

// attest uploads a signed statement and answers its id.
func (w *world) attest(t *testing.T, repo, token, predicateType string, digests ...string) int64 {
	t.Helper()
	var out struct{ ID int64 }
	w.e.Must(201, "POST", "/repos/"+repo+"/attestations", token, map[string]any{"bundle": w.sign.bundle(t, statement(predicateType, digests...))}).JSON(t, &out)
	if out.ID == 0 {
		t.Fatal("no id")
	}
	return out.ID
}

// Uploading: a writer's signed bundle is stored; a tampered, unsigned or
// malformed one is refused with 422; readers get 403, strangers to a
// private repository 404, the anonymous 401.
func TestCreateAttestation(t *testing.T) {
	w := newWorld(t)
	e, d := w.e, digest("app.tar")
	id := w.attest(t, "octo/app", w.olgaT, provenance, d)

	forged := w.sign.forged(t, statement(provenance, d), statement(provenance, digest("evil.tar")))
	for name, body := range map[string]any{
		"tampered":     map[string]any{"bundle": forged},
		"no subject":   map[string]any{"bundle": w.sign.bundle(t, statement(provenance))},
		"no predicate": map[string]any{"bundle": w.sign.bundle(t, statement("", d))},
		"no envelope":  map[string]any{"bundle": map[string]any{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"}},
		"bad media": map[string]any{"bundle": func() map[string]any {
			b := w.sign.bundle(t, statement(provenance, d))
			b["mediaType"] = "text/plain"
			return b
		}()},
	} {
		r := e.Do("POST", "/repos/octo/app/attestations", w.olgaT, body)
		if r.StatusCode != 422 {
			t.Errorf("%s: %d %s", name, r.StatusCode, r.Body)
		}
	}
	// A bundle that names its key by hint only is stored: the key is not
	// in it to check.
	hinted := w.sign.bundle(t, statement(provenance, d))
	hinted["verificationMaterial"] = map[string]any{"publicKey": map[string]any{"hint": "key-1"}, "tlogEntries": []any{}}
	e.Must(201, "POST", "/repos/octo/app/attestations", w.olgaT, map[string]any{"bundle": hinted})

	ok := map[string]any{"bundle": w.sign.bundle(t, statement(provenance, d))}
	e.Must(403, "POST", "/repos/octo/app/attestations", w.zedT, ok)
	e.Must(403, "POST", "/repos/octo/app/attestations", w.samT, ok)
	e.Must(404, "POST", "/repos/octo/secret/attestations", w.zedT, ok)
	e.Must(401, "POST", "/repos/octo/app/attestations", "", ok)

	// The stored bundle comes back as uploaded, also at its bundle_url.
	res, _, err := e.GitHub(w.zedT).Repositories.ListAttestations(ctx, "octo", "app", d, nil)
	if err != nil || len(res.Attestations) != 2 {
		t.Fatalf("list: %v %+v", err, res)
	}
	var l listed
	e.Must(200, "GET", "/repos/octo/app/attestations/"+d, w.zedT, nil).JSON(t, &l)
	last := l.Attestations[1]
	if last.RepositoryID != w.app.GetID() || last.Initiator != "user" || !strings.HasSuffix(last.BundleURL, "/bundles/"+strconv.FormatInt(id, 10)) {
		t.Fatalf("attestation %+v", last)
	}
	var want, got, fetched any
	json.Unmarshal(last.Bundle, &got)
	b, _ := json.Marshal(ok["bundle"])
	_ = b
	u, _ := url.Parse(last.BundleURL)
	json.Unmarshal(e.Must(200, "GET", strings.TrimPrefix(u.Path, "/api/v3"), w.zedT, nil).Body, &fetched)
	json.Unmarshal(last.Bundle, &want)
	if !jsonEqual(want, fetched) || !jsonEqual(got, fetched) {
		t.Fatalf("bundle_url serves %v", fetched)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Lists by repository, organization and user, filtered by predicate type
// and by what the caller may read, paged by cursors; the bulk list and the
// list of repositories.
func TestListAttestations(t *testing.T) {
	w := newWorld(t)
	e := w.e
	d1, d2, d3 := digest("one"), digest("two"), digest("three")
	w.attest(t, "octo/app", w.olgaT, provenance, d1)
	w.attest(t, "octo/app", w.olgaT, "https://spdx.dev/Document/v2.3", d1, d2)
	w.attest(t, "octo/secret", w.olgaT, provenance, d1)
	w.attest(t, "octo/app", w.olgaT, "https://example.com/custom/v1", d2)

	count := func(path, token string) int {
		var l listed
		e.Must(200, "GET", path, token, nil).JSON(t, &l)
		return len(l.Attestations)
	}
	for _, c := range []struct {
		path, token string
		want        int
	}{
		{"/repos/octo/app/attestations/" + d1, w.zedT, 2},
		{"/repos/octo/app/attestations/" + d1 + "?predicate_type=provenance", w.zedT, 1},
		{"/repos/octo/app/attestations/" + d1 + "?predicate_type=sbom", w.zedT, 1},
		{"/repos/octo/app/attestations/" + d2 + "?predicate_type=https://example.com/custom/v1", w.zedT, 1},
		{"/repos/octo/app/attestations/" + d3, w.zedT, 0},
		{"/orgs/octo/attestations/" + d1, w.olgaT, 3},
		{"/orgs/octo/attestations/" + d1, w.zedT, 2},
		{"/orgs/octo/attestations/" + d1, "", 2},
		{"/orgs/octo/attestations/" + d1 + "?predicate_type=provenance", w.olgaT, 2},
	} {
		if n := count(c.path, c.token); n != c.want {
			t.Errorf("%s: %d, want %d", c.path, n, c.want)
		}
	}
	e.Must(404, "GET", "/repos/octo/secret/attestations/"+d1, w.zedT, nil)
	e.Must(404, "GET", "/orgs/nope/attestations/"+d1, w.olgaT, nil)
	res, _, err := e.GitHub(w.olgaT).Organizations.ListAttestations(ctx, "octo", d1, nil)
	if err != nil || len(res.Attestations) != 3 {
		t.Fatalf("go-github org list: %v %+v", err, res)
	}

	// Cursor pages, newest first, forwards and back.
	path := "/orgs/octo/attestations/" + d1 + "?per_page=1"
	var seen []int64
	for page := 0; path != ""; page++ {
		r := e.Must(200, "GET", path, w.olgaT, nil)
		var l listed
		r.JSON(t, &l)
		if len(l.Attestations) != 1 {
			t.Fatalf("page %d: %s", page, r.Body)
		}
		seen = append(seen, l.Attestations[0].RepositoryID)
		path = linkOf(r.Header.Get("Link"), "next")
		if page == 2 {
			prev := linkOf(r.Header.Get("Link"), "prev")
			var back listed
			e.Must(200, "GET", prev, w.olgaT, nil).JSON(t, &back)
			if len(back.Attestations) != 1 || back.Attestations[0].RepositoryID != seen[1] {
				t.Fatalf("prev page %+v", back)
			}
		}
	}
	if len(seen) != 3 || seen[0] != w.secret.GetID() {
		t.Fatalf("pages %v", seen)
	}
	e.Must(400, "GET", "/orgs/octo/attestations/"+d1+"?after=!!", w.olgaT, nil)

	// Bulk: every digest asked for is a key, null when nothing matches.
	var bulk struct {
		Map      map[string][]json.RawMessage `json:"attestations_subject_digests"`
		PageInfo struct {
			HasNext bool   `json:"has_next"`
			Next    string `json:"next"`
		} `json:"page_info"`
	}
	e.Must(200, "POST", "/orgs/octo/attestations/bulk-list", w.zedT, map[string]any{"subject_digests": []string{d1, d2, d3}}).JSON(t, &bulk)
	if len(bulk.Map[d1]) != 2 || len(bulk.Map[d2]) != 2 || bulk.Map[d3] != nil || bulk.PageInfo.HasNext {
		t.Fatalf("bulk %+v", bulk)
	}
	r := e.Must(200, "POST", "/orgs/octo/attestations/bulk-list?per_page=2", w.olgaT, map[string]any{"subject_digests": []string{d1}, "predicate_type": "provenance"})
	r.JSON(t, &bulk)
	if len(bulk.Map[d1]) != 2 || bulk.PageInfo.HasNext {
		t.Fatalf("bulk provenance %s", r.Body)
	}
	r = e.Must(200, "POST", "/orgs/octo/attestations/bulk-list?per_page=1", w.olgaT, map[string]any{"subject_digests": []string{d1}})
	r.JSON(t, &bulk)
	if len(bulk.Map[d1]) != 1 || !bulk.PageInfo.HasNext || bulk.PageInfo.Next == "" {
		t.Fatalf("bulk page %s", r.Body)
	}
	e.Must(200, "POST", "/orgs/octo/attestations/bulk-list?per_page=1&after="+bulk.PageInfo.Next, w.olgaT, map[string]any{"subject_digests": []string{d1}})
	e.Must(422, "POST", "/orgs/octo/attestations/bulk-list", w.olgaT, map[string]any{"subject_digests": []string{}})

	// Repositories with attestations.
	var repos []struct {
		ID   int64
		Name string
	}
	e.Must(200, "GET", "/orgs/octo/attestations/repositories", w.olgaT, nil).JSON(t, &repos)
	if len(repos) != 2 || repos[0].Name != "secret" || repos[1].Name != "app" {
		t.Fatalf("repositories %+v", repos)
	}
	e.Must(200, "GET", "/orgs/octo/attestations/repositories?predicate_type=sbom", w.zedT, nil).JSON(t, &repos)
	if len(repos) != 1 || repos[0].ID != w.app.GetID() {
		t.Fatalf("repositories for zed %+v", repos)
	}

	// A user's repositories.
	if _, _, err := e.GitHub(w.zedT).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("mine")}); err != nil {
		t.Fatal(err)
	}
	w.attest(t, "zed/mine", w.zedT, provenance, d3)
	ures, _, err := e.GitHub(w.olgaT).Users.ListAttestations(ctx, "zed", d3, nil)
	if err != nil || len(ures.Attestations) != 1 {
		t.Fatalf("user list %v %+v", err, ures)
	}
	e.Must(200, "POST", "/users/zed/attestations/bulk-list", w.olgaT, map[string]any{"subject_digests": []string{d3}}).JSON(t, &bulk)
	if len(bulk.Map[d3]) != 1 {
		t.Fatalf("user bulk %+v", bulk)
	}
}

// linkOf is the path of a Link header's rel.
func linkOf(h, rel string) string {
	for _, part := range strings.Split(h, ",") {
		if strings.Contains(part, `rel="`+rel+`"`) {
			s := strings.TrimSpace(part)
			u, _ := url.Parse(s[1:strings.Index(s, ">")])
			return strings.TrimPrefix(u.RequestURI(), "/api/v3")
		}
	}
	return ""
}

// Deleting by id, by digest and in bulk: writers of the repositories
// only; what the caller may not see is not there.
func TestDeleteAttestations(t *testing.T) {
	w := newWorld(t)
	e := w.e
	d1, d2 := digest("one"), digest("two")
	a1 := w.attest(t, "octo/app", w.olgaT, provenance, d1)
	s1 := w.attest(t, "octo/secret", w.olgaT, provenance, d1)
	w.attest(t, "octo/app", w.olgaT, provenance, d2)
	w.attest(t, "octo/app", w.olgaT, provenance, d2)
	id := func(n int64) string { return strconv.FormatInt(n, 10) }

	e.Must(403, "DELETE", "/orgs/octo/attestations/"+id(a1), w.zedT, nil)
	e.Must(404, "DELETE", "/orgs/octo/attestations/"+id(s1), w.zedT, nil)
	e.Must(401, "DELETE", "/orgs/octo/attestations/"+id(a1), "", nil)
	e.Must(404, "DELETE", "/orgs/nope/attestations/"+id(a1), w.olgaT, nil)
	e.Must(404, "DELETE", "/users/zed/attestations/"+id(a1), w.zedT, nil) // not zed's
	e.Must(200, "DELETE", "/orgs/octo/attestations/"+id(a1), w.olgaT, nil)
	e.Must(404, "DELETE", "/orgs/octo/attestations/"+id(a1), w.olgaT, nil)

	e.Must(422, "POST", "/orgs/octo/attestations/delete-request", w.olgaT, map[string]any{})
	e.Must(403, "POST", "/orgs/octo/attestations/delete-request", w.samT, map[string]any{"subject_digests": []string{d2}})
	e.Must(200, "POST", "/orgs/octo/attestations/delete-request", w.olgaT, map[string]any{"subject_digests": []string{d2}})
	var l listed
	e.Must(200, "GET", "/orgs/octo/attestations/"+d2, w.olgaT, nil).JSON(t, &l)
	if len(l.Attestations) != 0 {
		t.Fatalf("left %+v", l)
	}
	e.Must(200, "POST", "/orgs/octo/attestations/delete-request", w.olgaT, map[string]any{"attestation_ids": []int64{s1}})
	e.Must(404, "POST", "/orgs/octo/attestations/delete-request", w.olgaT, map[string]any{"attestation_ids": []int64{s1}})

	w.attest(t, "octo/app", w.olgaT, provenance, d1)
	e.Must(200, "DELETE", "/orgs/octo/attestations/digest/"+d1, w.olgaT, nil)
	e.Must(404, "DELETE", "/orgs/octo/attestations/digest/"+d1, w.olgaT, nil)

	if _, _, err := e.GitHub(w.zedT).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("mine")}); err != nil {
		t.Fatal(err)
	}
	z := w.attest(t, "zed/mine", w.zedT, provenance, d1)
	e.Must(403, "DELETE", "/users/zed/attestations/"+id(z), w.olgaT, nil)
	e.Must(200, "POST", "/users/zed/attestations/delete-request", w.zedT, map[string]any{"attestation_ids": []int64{z}})
	w.attest(t, "zed/mine", w.zedT, provenance, d1)
	e.Must(200, "DELETE", "/users/zed/attestations/digest/"+d1, w.zedT, nil)
	w.attest(t, "zed/mine", w.zedT, provenance, d2)
	e.Must(200, "DELETE", "/users/zed/attestations/digest/"+d2, w.zedT, nil)
	z = w.attest(t, "zed/mine", w.zedT, provenance, d1)
	e.Must(200, "DELETE", "/users/zed/attestations/"+id(z), w.zedT, nil)
	e.Must(404, "DELETE", "/users/zed/attestations/"+id(z), w.zedT, nil)
}

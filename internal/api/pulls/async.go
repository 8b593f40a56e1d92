package pulls

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// asyncResult is components/schemas/pull-request-merge-async-result; its
// details take one of three shapes (pending request, failure, merged).
type asyncResult struct {
	Status  string `json:"status"`
	Details any    `json:"details"`
}

type asyncRequest struct {
	Message         string `json:"message"`
	UUID            string `json:"uuid"`
	MergeMethod     string `json:"merge_method"`
	MergeAction     string `json:"merge_action"`
	ExpectedHeadSHA string `json:"expected_head_sha"`
}

type asyncFailed struct {
	Message string `json:"message"`
}

type asyncMerged struct {
	Message string `json:"message"`
	SHA     string `json:"sha"`
}

func toAsync(m *model.MergeRequest) asyncResult {
	switch m.Status {
	case "merged":
		sha := ""
		if m.SHA != nil {
			sha = *m.SHA
		}
		return asyncResult{Status: "merged", Details: asyncMerged{Message: m.Message, SHA: sha}}
	case "failed":
		return asyncResult{Status: "failed", Details: asyncFailed{Message: m.Message}}
	}
	msg := m.Message
	if msg == "" {
		msg = "Merge request is in progress."
	}
	return asyncResult{Status: "pending", Details: asyncRequest{Message: msg, UUID: m.UUID, MergeMethod: m.Method,
		MergeAction: m.Action, ExpectedHeadSHA: m.ExpectedHeadSHA}}
}

type mergeAsyncBody struct {
	mergeBody
	MergeAction *string `json:"merge_action"`
}

// PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge-async
func (a *API) mergeAsync(w http.ResponseWriter, r *http.Request) error {
	repo, perm, err := a.d.WritableRepo(r, authz.Write)
	if err != nil {
		return err
	}
	n, err := number(r)
	if err != nil {
		return err
	}
	var in mergeAsyncBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	mi := in.input()
	action := ""
	if in.MergeAction != nil {
		action = *in.MergeAction
	}
	out, err := a.svc.MergeAsync(r.Context(), repo, a.caller(r, perm), n, mi, action)
	if err != nil {
		return err
	}
	if out.Request != nil {
		return rest.JSON(w, out.Status, toAsync(out.Request))
	}
	if out.Result == "merged" {
		return rest.JSON(w, out.Status, asyncResult{Status: "merged", Details: asyncMerged{Message: out.Message, SHA: out.SHA}})
	}
	return rest.JSON(w, out.Status, asyncResult{Status: out.Result, Details: asyncFailed{Message: out.Message}})
}

// GET /repos/{owner}/{repo}/pulls/{pull_number}/merge-async/{uuid}
func (a *API) mergeAsyncResult(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	n, err := number(r)
	if err != nil {
		return err
	}
	m, err := a.svc.MergeRequest(r.Context(), repo, n, r.PathValue("uuid"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, toAsync(m))
}

package runners

import (
	"net/http"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/runners"
	"github.com/hubd/hubd/internal/wire"
)

type runnerList struct {
	TotalCount int           `json:"total_count"`
	Runners    []wire.Runner `json:"runners"`
}

func (a *API) render(list []*model.Runner) []wire.Runner {
	out := make([]wire.Runner, len(list))
	for i, r := range list {
		out[i] = wire.ToRunner(r, a.svc.Online(r))
	}
	return out
}

// GET .../actions/runners
func (a *API) list(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.svc.List(r.Context(), sc, r.URL.Query().Get("name"), p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, runnerList{TotalCount: total, Runners: a.render(list)})
	}
}

// runnerScope authorizes the caller and reads {runner_id}.
func (a *API) runnerScope(r *http.Request, kind string) (svc.Scope, int64, error) {
	sc, err := a.scope(r, kind)
	if err != nil {
		return sc, 0, err
	}
	rid, err := id(r, "runner_id")
	return sc, rid, err
}

// GET .../actions/runners/{runner_id}
func (a *API) get(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, rid, err := a.runnerScope(r, kind)
		if err != nil {
			return err
		}
		run, err := a.svc.Get(r.Context(), sc, rid)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.render([]*model.Runner{run})[0])
	}
}

// DELETE .../actions/runners/{runner_id}
func (a *API) del(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, rid, err := a.runnerScope(r, kind)
		if err != nil {
			return err
		}
		if err := a.svc.Delete(r.Context(), sc, rid); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// The labels operations: op "" lists, "add" and "set" take {labels},
// "remove" removes every custom label, "remove-one" the one named.
func (a *API) labels(kind, op string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, rid, err := a.runnerScope(r, kind)
		if err != nil {
			return err
		}
		var ls []model.RunnerLabel
		switch op {
		case "":
			run, err := a.svc.Get(r.Context(), sc, rid)
			if err != nil {
				return err
			}
			ls = run.Labels
		case "add", "set":
			var in struct {
				Labels *[]string `json:"labels"`
			}
			if err := rest.Decode(r, &in); err != nil {
				return err
			}
			if in.Labels == nil {
				return model.Invalid("Runner", "labels", "missing_field")
			}
			if ls, err = a.svc.LabelOp(r.Context(), sc, rid, op, *in.Labels); err != nil {
				return err
			}
		case "remove":
			if ls, err = a.svc.LabelOp(r.Context(), sc, rid, "remove", nil); err != nil {
				return err
			}
		default:
			if ls, err = a.svc.LabelOp(r.Context(), sc, rid, "remove", []string{r.PathValue("name")}); err != nil {
				return err
			}
		}
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount int                `json:"total_count"`
			Labels     []wire.RunnerLabel `json:"labels"`
		}{len(ls), wire.ToRunnerLabels(ls)})
	}
}

// POST .../actions/runners/registration-token and remove-token
func (a *API) token(kind, which string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		tok, exp, err := a.svc.Token(r.Context(), sc, which)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusCreated, struct {
			Token     string `json:"token"`
			ExpiresAt string `json:"expires_at"`
		}{tok, exp.UTC().Format(time.RFC3339)})
	}
}

// POST .../actions/runners/generate-jitconfig
func (a *API) jit(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		var in svc.JITInput
		if err := rest.Decode(r, &in); err != nil {
			return err
		}
		run, cfg, err := a.svc.JIT(r.Context(), sc, in, a.d.URLs.Web)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusCreated, struct {
			Runner           wire.Runner `json:"runner"`
			EncodedJITConfig string      `json:"encoded_jit_config"`
		}{a.render([]*model.Runner{run})[0], cfg})
	}
}

// runnerVersion is the GitHub runner release the downloads list.
const runnerVersion = "2.329.0"

// GET .../actions/runners/downloads
func (a *API) downloads(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := a.scope(r, kind); err != nil {
			return err
		}
		type app struct {
			OS           string `json:"os"`
			Architecture string `json:"architecture"`
			DownloadURL  string `json:"download_url"`
			Filename     string `json:"filename"`
		}
		var out []app
		for _, p := range []struct{ os, arch, file, ext string }{
			{"osx", "x64", "osx-x64", "tar.gz"}, {"osx", "arm64", "osx-arm64", "tar.gz"},
			{"linux", "x64", "linux-x64", "tar.gz"}, {"linux", "arm", "linux-arm", "tar.gz"}, {"linux", "arm64", "linux-arm64", "tar.gz"},
			{"win", "x64", "win-x64", "zip"}, {"win", "arm64", "win-arm64", "zip"},
		} {
			f := "actions-runner-" + p.file + "-" + runnerVersion + "." + p.ext
			out = append(out, app{OS: p.os, Architecture: p.arch, Filename: f,
				DownloadURL: "https://github.com/actions/runner/releases/download/v" + runnerVersion + "/" + f})
		}
		return rest.JSON(w, http.StatusOK, out)
	}
}

// GET .../actions/runners/deprecations/{version}
func (a *API) deprecation(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := a.scope(r, kind); err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, struct {
			RunnerVersion            string  `json:"runner_version"`
			RegistrationDeprecatesAt *string `json:"registration_deprecates_at"`
			RuntimeDeprecatesAt      *string `json:"runtime_deprecates_at"`
		}{RunnerVersion: r.PathValue("version")})
	}
}

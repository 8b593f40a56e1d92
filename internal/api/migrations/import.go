package migrations

import (
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/migrations"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// importArchive is POST /admin/migrations/import, hubd's site-admin
// import of a migration archive (GitHub Enterprise Server imports with the
// ghe-migrator command only; its REST description has no import). The
// body is the archive itself (application/gzip), or multipart/form-data
// with an "archive" file part and an optional "mapping" part (the CSV that
// `hubd import --mapping` reads). ?dry_run=true only reports conflicts
// (200); an import answers 201 with the report. ?unknown_users= (or the
// part) is report, ghost or create (svc.ImportOptions.UnknownUsers).
func (a *API) importArchive(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "hubd-import-*.tar.gz")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	opt := svc.ImportOptions{ActorID: c.UserID()}
	opt.DryRun, _ = strconv.ParseBool(r.URL.Query().Get("dry_run"))
	opt.UnknownUsers = r.URL.Query().Get("unknown_users")
	got := false
	if mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		mr, err := r.MultipartReader()
		if err != nil || params["boundary"] == "" {
			return model.Custom("Migration", "archive", "the multipart body cannot be read")
		}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return model.Custom("Migration", "archive", "the multipart body cannot be read")
			}
			switch part.FormName() {
			case "archive":
				if _, err := io.Copy(tmp, part); err != nil {
					return err
				}
				got = true
			case "mapping":
				if opt.Mapping, err = svc.ParseMapping(part); err != nil {
					return model.Custom("Migration", "mapping", err.Error())
				}
			case "dry_run":
				b, _ := io.ReadAll(io.LimitReader(part, 16))
				opt.DryRun, _ = strconv.ParseBool(string(b))
			case "unknown_users":
				b, _ := io.ReadAll(io.LimitReader(part, 16))
				opt.UnknownUsers = string(b)
			}
		}
	} else {
		n, err := io.Copy(tmp, r.Body)
		if err != nil {
			return err
		}
		got = n > 0
	}
	if !got {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Migration", Field: "archive", Code: "missing_field"}}}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	report, err := a.svc.Import(r.Context(), tmp.Name(), opt)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if opt.DryRun {
		status = http.StatusOK
	}
	return rest.JSON(w, status, report)
}

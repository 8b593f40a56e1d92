package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/hubd/hubd/internal/wire"
)

// A page of runs repeats the repository object twice per run (repository
// and head_repository): most of its bytes. The list encodes that object
// once and splices it into every run, so the encoder neither re-encodes
// nor re-validates it (as the pull request list does).

// listedRun is a run whose repository objects are spliced in after.
type listedRun struct {
	wire.WorkflowRun
	Repository     json.RawMessage `json:"repository"`
	HeadRepository json.RawMessage `json:"head_repository"`
}

var (
	runRepoMarker = []byte(`"repository":-1`)
	runHeadMarker = []byte(`"head_repository":-1`)
	runMarker     = json.RawMessage("-1")
)

// writeRunList answers {"total_count": total, "workflow_runs": runs}.
func writeRunList(w http.ResponseWriter, total int, runs []wire.WorkflowRun) error {
	bp := runBuffers.Get().(*bytes.Buffer)
	defer func() {
		if bp.Cap() <= 8<<20 {
			bp.Reset()
			runBuffers.Put(bp)
		}
	}()
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false)
	var repo []byte
	bp.WriteString(`{"total_count":` + strconv.Itoa(total) + `,"workflow_runs":[`)
	for i := range runs {
		if repo == nil {
			item.Reset()
			if err := enc.Encode(runs[i].Repository); err != nil {
				return err
			}
			repo = bytes.Clone(bytes.TrimSuffix(item.Bytes(), []byte("\n")))
		}
		item.Reset()
		if err := enc.Encode(listedRun{WorkflowRun: runs[i], Repository: runMarker, HeadRepository: runMarker}); err != nil {
			return err
		}
		b := bytes.TrimSuffix(item.Bytes(), []byte("\n"))
		if i > 0 {
			bp.WriteByte(',')
		}
		for _, m := range [][]byte{runRepoMarker, runHeadMarker} {
			k := bytes.Index(b, m)
			if k < 0 {
				return errors.New("actions: run without its repository marker")
			}
			bp.Write(b[:k+len(m)-2])
			bp.Write(repo)
			b = b[k+len(m):]
		}
		bp.Write(b)
	}
	bp.WriteString("]}\n")
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(bp.Len()))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(bp.Bytes())
	return err
}

var runBuffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 1<<20)) }}

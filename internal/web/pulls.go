package web

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// maxPullText bounds a pull request's .diff or .patch page.
const maxPullText = 16 << 20

// pullText serves /pull/{n}.diff and /pull/{n}.patch (a pull request's
// diff_url and patch_url): the diff from the merge base to the head, or
// the head's commits as mailbox patches, as plain text.
func (x *req) pullText() bool {
	ctx := x.r.Context()
	p, err := x.h.d.Store.R().PullByNumber(ctx, x.repo.ID, x.pg.number)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	g := x.h.d.Git.Open(x.repo.ID)
	mb, err := g.MergeBase(ctx, p.BaseSHA, p.HeadSHA)
	if errors.Is(err, gitrepo.ErrNotFound) {
		mb = p.BaseSHA
	} else if err != nil {
		return x.fail(err)
	}
	var b limitedBuffer
	b.max = maxPullText
	if x.pg.format == "patch" {
		err = g.FormatPatch(ctx, &b, mb, p.HeadSHA)
	} else {
		err = g.DiffText(ctx, &b, mb, p.HeadSHA)
	}
	if err != nil && !b.over {
		return x.fail(err)
	}
	x.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	x.w.Header().Set("Content-Length", strconv.Itoa(b.buf.Len()))
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method != http.MethodHead {
		x.w.Write(b.buf.Bytes())
	}
	return true
}

// limitedBuffer keeps at most max bytes and then refuses more (which stops
// the git process writing into it).
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.buf.Len()+len(p) > l.max {
		l.over = true
		return 0, errors.New("web: text too large")
	}
	return l.buf.Write(p)
}

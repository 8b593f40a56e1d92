package users

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/rest"
)

// GET /avatars/u/{account_id}: the account's avatar, an identicon drawn from
// its id (hubd stores no pictures), so that every avatar_url resolves. An
// extension of ours: GitHub serves avatars from another host.
func (a *API) avatar(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("account_id"), 10, 64)
	if err != nil {
		return rest.ErrNotFound
	}
	if _, err := a.d.Store.R().AccountByID(r.Context(), id); err != nil {
		return err
	}
	body := identicon(id)
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "public, max-age=86400")
	_, err = w.Write([]byte(body))
	return err
}

// identicon draws a 5×5 mirrored grid in one colour, both taken from a hash
// of the id.
func identicon(id int64) string {
	sum := sha256.Sum256([]byte("hubd-avatar:" + strconv.FormatInt(id, 10)))
	hue := int(sum[0])<<8 | int(sum[1])
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="420" height="420" viewBox="0 0 5 5" shape-rendering="crispEdges">`)
	b.WriteString(`<rect width="5" height="5" fill="#f0f0f0"/>`)
	fmt.Fprintf(&b, `<g fill="hsl(%d,55%%,55%%)">`, hue%360)
	bit := 0
	for x := 0; x < 3; x++ {
		for y := 0; y < 5; y++ {
			on := sum[2+bit/8]>>(bit%8)&1 == 1
			bit++
			if !on {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="1" height="1"/>`, x, y)
			if x != 2 {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="1" height="1"/>`, 4-x, y)
			}
		}
	}
	b.WriteString(`</g></svg>`)
	return b.String()
}

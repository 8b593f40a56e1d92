package meta

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GHESRelease is the GitHub Enterprise Server release whose REST
// description hubd implements. It is /meta's installed_version and the
// X-GitHub-Enterprise-Version header: clients read it as a GHES release
// (major.minor.patch) and compare it with the releases they know, so hubd's
// own version would make them refuse it (that one is X-Hubd-Version).
const GHESRelease = "3.19.0"

// GET /meta: no password authentication for git (tokens only), the
// release, and address lists that describe this instance: hubd knows no
// fixed addresses of its own, so they are empty, and its only domain is the
// configured host.
func (a *API) meta(w http.ResponseWriter, r *http.Request) error {
	var host []string
	if u, err := url.Parse(a.d.URLs.Web); err == nil && u.Hostname() != "" {
		host = []string{u.Hostname()}
	}
	none := []string{}
	return rest.JSON(w, http.StatusOK, wire.APIOverview{
		VerifiablePasswordAuthentication: false,
		Packages:                         none,
		Domains:                          wire.APIOverviewDomains{Website: append(none, host...), Codespaces: none, Copilot: none, Packages: none},
		InstalledVersion:                 GHESRelease,
	})
}

// GET /versions: the values X-GitHub-Api-Version accepts.
func (a *API) listVersions(w http.ResponseWriter, r *http.Request) error {
	return rest.JSON(w, http.StatusOK, append([]string{}, a.versions...))
}

// zens are hubd's aphorisms, one of which GET /zen answers.
var zens = []string{
	"Small commits tell the clearest stories.",
	"A green build is a promise, not a trophy.",
	"Read your own diff before you ask for a review.",
	"Names are documentation that never goes stale.",
	"Delete code with the same care you write it.",
	"The best merge conflict is the one nobody had to create.",
	"Tests are letters to your future self.",
	"Ship the simple thing, then listen.",
	"A good issue says what, why, and how to tell it is done.",
	"Branches are cheap; attention is not.",
	"Review the change, not the person.",
	"Write commit messages for the reader of the log.",
	"Every default is a decision someone made for you.",
	"Fast feedback beats clever code.",
	"Leave the repository kinder than you found it.",
	"When in doubt, write it down.",
	"Automate the boring, review the interesting.",
	"An unread README is a locked door.",
}

func randomZen() string { return zens[rand.IntN(len(zens))] }

// GET /zen
func (a *API) zen(w http.ResponseWriter, r *http.Request) error {
	return writeText(w, "text/plain;charset=utf-8", randomZen())
}

// octocatArt is hubd's octocat, drawn below its speech bubble.
const octocatArt = `          \
           \    /\_____/\
            \  /  o   o  \
              (    =^=    )
               \  \___/  /
               /'-------'\
              / /| | | |\ \
             (_/ | | | | \_)
                 |_| |_|
`

// GET /octocat: the octocat saying s (a random aphorism without it).
func (a *API) octocat(w http.ResponseWriter, r *http.Request) error {
	s := r.URL.Query().Get("s")
	if s == "" {
		s = randomZen()
	}
	return writeText(w, "application/octocat-stream", bubble(s, 40)+octocatArt)
}

// bubble draws text in a speech bubble, wrapped at width columns.
func bubble(text string, width int) string {
	var lines []string
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			for len([]rune(word)) > width { // split words longer than a line
				if line != "" {
					lines, line = append(lines, line), ""
				}
				rs := []rune(word)
				lines, word = append(lines, string(rs[:width])), string(rs[width:])
			}
			switch {
			case line == "":
				line = word
			case len([]rune(line))+1+len([]rune(word)) <= width:
				line += " " + word
			default:
				lines, line = append(lines, line), word
			}
		}
		lines = append(lines, line)
	}
	w := 0
	for _, l := range lines {
		w = max(w, len([]rune(l)))
	}
	var b strings.Builder
	b.WriteString("  " + strings.Repeat("_", w+2) + "\n")
	for i, l := range lines {
		left, right := "|", "|"
		switch {
		case len(lines) == 1:
			left, right = "<", ">"
		case i == 0:
			left, right = "/", "\\"
		case i == len(lines)-1:
			left, right = "\\", "/"
		}
		b.WriteString(" " + left + " " + l + strings.Repeat(" ", w-len([]rune(l))) + " " + right + "\n")
	}
	b.WriteString("  " + strings.Repeat("-", w+2) + "\n")
	return b.String()
}

func writeText(w http.ResponseWriter, contentType, s string) error {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(s)))
	w.WriteHeader(http.StatusOK)
	_, err := io.WriteString(w, s)
	return err
}

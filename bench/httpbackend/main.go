// Command httpbackend serves a directory of bare repositories with git's own
// `git http-backend` through CGI: the baseline hubd's git transport is
// measured against.
//
//	httpbackend -addr 127.0.0.1:18482 -root /path/to/repos
package main

import (
	"flag"
	"log"
	"net/http"
	"net/http/cgi"
	"os/exec"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18482", "listen address")
	root := flag.String("root", ".", "directory holding the bare repositories")
	flag.Parse()
	git, err := exec.LookPath("git")
	if err != nil {
		log.Fatal(err)
	}
	h := &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Env:  []string{"GIT_PROJECT_ROOT=" + *root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"},
	}
	log.Fatal(http.ListenAndServe(*addr, h))
}

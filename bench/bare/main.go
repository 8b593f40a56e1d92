// Command bare is the benchmark baseline: a plain net/http handler that
// answers fixed JSON bytes for fixed paths (the bodies hubd itself answered),
// so that hubd's cost is measured against net/http's on the same machine in
// the same run.
//
//	bare -addr 127.0.0.1:18081 /repos/acme/repo-1=body1.json /user/repos=body2.json
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address")
	flag.Parse()
	bodies := map[string][]byte{}
	for _, arg := range flag.Args() {
		path, file, ok := strings.Cut(arg, "=")
		if !ok {
			log.Fatalf("argument %q is not PATH=FILE", arg)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			log.Fatal(err)
		}
		bodies[path] = b
	}
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	})))
}

// Command rrproxy is bench/cluster.sh's load balancer: a round-robin
// reverse proxy over the nodes given, each request to the next one.
//
//	rrproxy -addr 127.0.0.1:18490 http://127.0.0.1:18491 http://127.0.0.1:18492
package main

import (
	"flag"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18490", "listen address")
	flag.Parse()
	var proxies []*httputil.ReverseProxy
	for _, a := range flag.Args() {
		u, err := url.Parse(a)
		if err != nil {
			log.Fatalf("node %q: %v", a, err)
		}
		p := httputil.NewSingleHostReverseProxy(u)
		// Keep as many idle connections to each node as the load has
		// connections, or the proxy measures its own dialling.
		p.Transport = &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
		// wrk closes its connections at the end of a run: the requests it
		// drops then are no errors of the nodes.
		p.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil {
				log.Printf("rrproxy: %s: %v", u.Host, err)
			}
			w.WriteHeader(http.StatusBadGateway)
		}
		proxies = append(proxies, p)
	}
	if len(proxies) == 0 {
		log.Fatal("rrproxy: no nodes")
	}
	var next atomic.Uint64
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxies[next.Add(1)%uint64(len(proxies))].ServeHTTP(w, r)
	})))
}

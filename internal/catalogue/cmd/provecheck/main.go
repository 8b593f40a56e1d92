// Command provecheck is the proof behind every Supported and Partial status:
// it fails, listing them, when a registered operation has no test that
// called it and received a success whose body validated against the
// operation's schema. internal/apitest records those operations, one file
// per test binary, in the directory HUBD_COVERAGE_DIR names; scripts/test.sh
// runs this after each database pass.
//
//	go run ./internal/catalogue/cmd/provecheck -coverage DIR [-pass sqlite]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/catalogue/live"
)

func main() {
	dir := flag.String("coverage", os.Getenv("HUBD_COVERAGE_DIR"), "directory of the coverage files written by internal/apitest")
	pass := flag.String("pass", "", "name of the test pass; the files read are then moved into DIR/NAME so the next pass is checked on its own")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("provecheck: ")
	if *dir == "" {
		log.Fatal("-coverage (or HUBD_COVERAGE_DIR) is required")
	}
	files, err := filepath.Glob(filepath.Join(*dir, "*.txt"))
	if err != nil {
		log.Fatal(err)
	}
	if len(files) == 0 {
		log.Fatalf("no coverage files in %s: the API tests must run with HUBD_COVERAGE_DIR set", *dir)
	}
	proven := map[string]bool{}
	for _, f := range files {
		if err := read(f, proven); err != nil {
			log.Fatal(err)
		}
	}
	routes, err := live.Routes()
	if err != nil {
		log.Fatal(err)
	}
	var missing []string
	n := 0
	for _, rt := range routes {
		if rt.Extension {
			continue
		}
		n++
		if !proven[rt.OperationID] {
			missing = append(missing, fmt.Sprintf("  %s %s (%s)", rt.Method, rt.Pattern, rt.OperationID))
		}
	}
	label := ""
	if *pass != "" {
		label = " on " + *pass
		archive := filepath.Join(*dir, *pass)
		if err := os.MkdirAll(archive, 0o755); err != nil {
			log.Fatal(err)
		}
		for _, f := range files {
			if err := os.Rename(f, filepath.Join(archive, filepath.Base(f))); err != nil {
				log.Fatal(err)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		fmt.Fprintf(os.Stderr, "provecheck: %d of %d registered operations have no test that got a success validated against their schema%s:\n%s\n",
			len(missing), n, label, strings.Join(missing, "\n"))
		fmt.Fprintln(os.Stderr, "Add a test (through internal/apitest) that calls each one and gets a 2xx, or remove the route.")
		os.Exit(1)
	}
	fmt.Printf("provecheck: all %d registered operations have a success validated against their schema%s\n", n, label)
}

func read(path string, into map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id := strings.TrimSpace(sc.Text()); id != "" {
			into[id] = true
		}
	}
	return sc.Err()
}

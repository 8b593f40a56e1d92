// Command readme rewrites the catalogue counts in README.md (between the
// catalogue markers) from the current route table: `make readme`.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/catalogue/live"
)

func main() {
	path := flag.String("readme", "README.md", "file to update")
	flag.Parse()
	log.SetFlags(0)
	rep, err := live.Report()
	if err != nil {
		log.Fatal(err)
	}
	doc, err := os.ReadFile(*path)
	if err != nil {
		log.Fatal(err)
	}
	out, err := catalogue.ReplaceReadmeSection(string(doc), live.ReadmeSection(rep))
	if err != nil {
		log.Fatal(err)
	}
	if out == string(doc) {
		log.Printf("%s: catalogue counts are current (%s)", *path, catalogue.SummaryLine(rep.Summary))
		return
	}
	if err := os.WriteFile(*path, []byte(out), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: catalogue counts updated (%s)", *path, catalogue.SummaryLine(rep.Summary))
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/catalogue/live"
)

// catalogueCmd prints the compatibility catalogue of this build: every
// operation of GitHub's description with the status its route table gives.
// With --fail-on-regression it exits non-zero when an operation's status is
// lower than in a report saved earlier with --format json (for CI).
func catalogueCmd(args []string) error {
	fs := flag.NewFlagSet("catalogue", flag.ContinueOnError)
	format := fs.String("format", "table", "output format: table, markdown or json")
	statuses := fs.String("status", "", "only these statuses, comma separated: supported, partial, planned (or unsupported), never")
	categories := fs.String("category", "", "only these categories, comma separated (e.g. repos,issues)")
	saved := fs.String("fail-on-regression", "", "a report saved with --format json: exit 1 when any operation's status is lower now")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("catalogue: unexpected argument %q", fs.Arg(0))
	}
	var f catalogue.Filter
	for _, v := range splitList(*statuses) {
		s, ok := catalogue.ParseStatus(v)
		if !ok {
			return fmt.Errorf("catalogue: unknown status %q (supported, partial, planned, never)", v)
		}
		f.Statuses = append(f.Statuses, s)
	}
	rep, err := live.Report()
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, c := range rep.Categories {
		known[c.Name] = true
	}
	for _, c := range splitList(*categories) {
		if !known[c] {
			return fmt.Errorf("catalogue: unknown category %q", c)
		}
		f.Categories = append(f.Categories, c)
	}

	// The regression check covers every operation of the saved report; the
	// filters only choose what is printed.
	var regressions []catalogue.Regression
	if *saved != "" {
		fh, err := os.Open(*saved)
		if err != nil {
			return err
		}
		old, err := catalogue.ReadReport(fh)
		fh.Close()
		if err != nil {
			return err
		}
		regressions = catalogue.Regressions(old, rep)
	}

	out := rep
	if f.Active() {
		out = rep.Filter(f)
	}
	switch *format {
	case "table":
		err = catalogue.WriteTable(os.Stdout, out)
	case "markdown", "md":
		err = catalogue.WriteMarkdown(os.Stdout, out)
	case "json":
		err = catalogue.WriteJSON(os.Stdout, out)
	default:
		return fmt.Errorf("catalogue: unknown format %q (table, markdown, json)", *format)
	}
	if err != nil {
		return err
	}
	if len(regressions) > 0 {
		fmt.Fprintf(os.Stderr, "%d operations regressed since %s:\n", len(regressions), *saved)
		for _, g := range regressions {
			fmt.Fprintln(os.Stderr, "  "+g.String())
		}
		return errors.New("catalogue: status regression")
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

package live

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hubd/hubd/internal/catalogue"
)

// TestReadmeCounts fails when README.md's catalogue counts differ from the
// route table's: run `make readme`.
func TestReadmeCounts(t *testing.T) {
	rep, err := Report()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "..", "README.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := catalogue.ReplaceReadmeSection(string(doc), ReadmeSection(rep))
	if err != nil {
		t.Fatal(err)
	}
	if want != string(doc) {
		t.Errorf("README.md's catalogue counts are stale (the route table says %s): run `make readme`", catalogue.SummaryLine(rep.Summary))
	}
}

// TestRoutes checks the route table is the server's, extensions included.
func TestRoutes(t *testing.T) {
	routes, err := Routes()
	if err != nil {
		t.Fatal(err)
	}
	var page, ops bool
	for _, rt := range routes {
		page = page || (rt.Extension && rt.Pattern == "/catalogue")
		ops = ops || (!rt.Extension && rt.OperationID == "users/get-authenticated")
	}
	if !page || !ops {
		t.Errorf("route table lacks /catalogue (%v) or users/get-authenticated (%v)", page, ops)
	}
}

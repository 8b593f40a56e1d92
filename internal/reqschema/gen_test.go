package reqschema

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate regenerates schemas.json.gz from the description
// in node_modules and compares it with the embedded copy: `make generate`
// must have been run after the description changed.
func TestGeneratedUpToDate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "schemas.json.gz")
	cmd := exec.Command("go", "run", "./gen", "-spec", "../../node_modules/@octokit/openapi/generated", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The content is compared, not the compressed bytes, which a change of
	// Go's compressor alone would alter.
	if !bytes.Equal(gunzip(t, got), gunzip(t, packed)) {
		t.Fatal("schemas.json.gz is stale: run `make generate`")
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

package deps_test

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/store/storetest"
)

// A download URL signed before a restart, or by another hubd on the same
// database, is valid until it expires: the key lives in the database.
func TestDownloadSignerKeptInDatabase(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	a, err := deps.LoadDownloadSigner(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	b, err := deps.LoadDownloadSigner(ctx, st) // the next process
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok := a.Token("archive", 7, "tar.gz/main", now)
	if !b.Valid(tok, "archive", 7, "tar.gz/main", now) {
		t.Fatal("a token of the first signer is refused by the second")
	}
	for name, ok := range map[string]bool{
		"other kind":       b.Valid(tok, "log", 7, "tar.gz/main", now),
		"other repository": b.Valid(tok, "archive", 8, "tar.gz/main", now),
		"other resource":   b.Valid(tok, "archive", 7, "zip/main", now),
		"expired":          b.Valid(tok, "archive", 7, "tar.gz/main", now.Add(11*time.Minute)),
		"process key":      deps.NewDownloadSigner().Valid(tok, "archive", 7, "tar.gz/main", now),
	} {
		if ok {
			t.Errorf("%s: accepted", name)
		}
	}
}

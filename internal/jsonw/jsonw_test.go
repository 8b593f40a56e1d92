package jsonw

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
)

// TestMatchesEncodingJSON: both modes write what encoding/json writes, for
// strings mixing ASCII, control characters, HTML characters, multi-byte
// runes, U+2028/9 and invalid UTF-8.
func TestMatchesEncodingJSON(t *testing.T) {
	pieces := []string{"a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"é", "日本", "😀", "\u2028", "\u2029", "\xff", "\xe2\x82", "/"}
	rnd := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		var s string
		for k := rnd.Intn(12); k >= 0; k-- {
			s += pieces[rnd.Intn(len(pieces))]
		}
		for _, html := range []bool{true, false} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			if got := AppendString(nil, s, html); !bytes.Equal(got, want) {
				t.Fatalf("html=%v %q: got %s, want %s", html, s, got, want)
			}
		}
	}
}

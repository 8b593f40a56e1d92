package actions

import (
	"encoding/base64"
	"sort"
	"strings"
)

// SecretMasks are the forms of a job's secret values its log must not
// show beyond the values themselves (which act masks): as GitHub's runner
// does, each line of a multi-line value, and each value's base64 encoding
// wherever it starts in a longer base64 text (three alignments).
// Longest first, so a longer form is masked before a part of it.
func SecretMasks(secrets map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, v := range secrets {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		add(v)
		if strings.ContainsAny(v, "\r\n") {
			for _, l := range strings.FieldsFunc(v, func(r rune) bool { return r == '\r' || r == '\n' }) {
				add(strings.TrimSpace(l))
			}
		}
		for shift := range 3 {
			enc := base64.StdEncoding.EncodeToString(append(make([]byte, shift), v...))
			// Characters mixing bits of the value with bits of its
			// neighbours differ from text to text: only the rest is
			// the value's.
			from, to := (shift*8+5)/6, (shift+len(v))*8/6
			if to-from >= 4 {
				add(enc[from:to])
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// Mask replaces every form in masks with ***.
func Mask(s string, masks []string) string {
	for _, m := range masks {
		if strings.Contains(s, m) {
			s = strings.ReplaceAll(s, m, "***")
		}
	}
	return s
}

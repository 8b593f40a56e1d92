package gitrepo

import "strings"

// ValidRefName applies git's check-ref-format rules to a full ref name
// ("refs/heads/main"): no control characters, spaces or any of ~^:?*[\,
// no "..", "@{", empty components, components starting with "." or ending
// in ".lock", no trailing "/" or ".", and not "@".
func ValidRefName(name string) bool {
	if name == "" || name == "@" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// ValidBranchName is ValidRefName for a branch name ("main", "feature/x"),
// with what git and GitHub refuse besides: a leading "-" (an option to
// git), "HEAD" and "@" (which name HEAD), and names over 255 bytes.
func ValidBranchName(b string) bool {
	return b != "" && b != "HEAD" && b != "@" && !strings.HasPrefix(b, "-") && len(b) <= 255 && ValidRefName("refs/heads/"+b)
}

package releases

import (
	"strconv"
	"strings"
)

// version is a tag read as a semantic version: an optional "v", numeric
// dot-separated components, then an optional "-prerelease" and "+build".
type version struct {
	nums []int64
	pre  []string
	ok   bool
}

func parseVersion(tag string) version {
	s := strings.TrimPrefix(strings.TrimPrefix(tag, "v"), "V")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	core, pre, hasPre := strings.Cut(s, "-")
	var v version
	for _, part := range strings.Split(core, ".") {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil || n < 0 {
			return version{}
		}
		v.nums = append(v.nums, n)
	}
	if hasPre {
		if pre == "" {
			return version{}
		}
		v.pre = strings.Split(pre, ".")
	}
	v.ok = true
	return v
}

// compareVersions orders two tags by semantic version (-1, 0, 1); a tag
// that is not a version sorts below every version, and two such tags by
// name.
func compareVersions(a, b string) int {
	va, vb := parseVersion(a), parseVersion(b)
	switch {
	case !va.ok && !vb.ok:
		return strings.Compare(a, b)
	case !va.ok:
		return -1
	case !vb.ok:
		return 1
	}
	for i := 0; i < max(len(va.nums), len(vb.nums)); i++ {
		var x, y int64
		if i < len(va.nums) {
			x = va.nums[i]
		}
		if i < len(vb.nums) {
			y = vb.nums[i]
		}
		if x != y {
			return cmp(x < y)
		}
	}
	// A prerelease comes before its release.
	switch {
	case len(va.pre) == 0 && len(vb.pre) == 0:
		return 0
	case len(va.pre) == 0:
		return 1
	case len(vb.pre) == 0:
		return -1
	}
	for i := 0; i < min(len(va.pre), len(vb.pre)); i++ {
		x, y := va.pre[i], vb.pre[i]
		nx, ex := strconv.ParseInt(x, 10, 64)
		ny, ey := strconv.ParseInt(y, 10, 64)
		switch {
		case ex == nil && ey == nil:
			if nx != ny {
				return cmp(nx < ny)
			}
		case ex == nil: // numeric identifiers sort first
			return -1
		case ey == nil:
			return 1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	// A longer list of identifiers sorts after its prefix.
	switch {
	case len(va.pre) < len(vb.pre):
		return -1
	case len(va.pre) > len(vb.pre):
		return 1
	}
	return 0
}

func cmp(less bool) int {
	if less {
		return -1
	}
	return 1
}

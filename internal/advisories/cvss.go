package advisories

import (
	"math"
	"strings"
)

// cvss3Base are CVSS v3's base metrics and their values' weights (FIRST's
// CVSS v3.1 specification, section 7.4). PR's weights change with scope.
var cvss3Base = map[string]map[string]float64{
	"AV": {"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2},
	"AC": {"L": 0.77, "H": 0.44},
	"PR": {"N": 0.85, "L": 0.62, "H": 0.27},
	"UI": {"N": 0.85, "R": 0.62},
	"S":  {"U": 0, "C": 0},
	"C":  {"H": 0.56, "L": 0.22, "N": 0},
	"I":  {"H": 0.56, "L": 0.22, "N": 0},
	"A":  {"H": 0.56, "L": 0.22, "N": 0},
}

// parseVector splits "CVSS:x/M:V/..." into its metrics: false when a
// metric repeats, is unknown or has a value outside its set, or a required
// one is missing.
func parseVector(vector, prefix string, allowed map[string][]string, required []string) (map[string]string, bool) {
	rest, ok := strings.CutPrefix(vector, prefix)
	if !ok || rest == "" {
		return nil, false
	}
	m := map[string]string{}
	for _, part := range strings.Split(rest, "/") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		vals, known := allowed[k]
		if !known || !contains(vals, v) {
			return nil, false
		}
		m[k] = v
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, false
		}
	}
	return m, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	cvss3Allowed  = map[string][]string{}
	cvss3Required []string
)

func init() {
	for k, vals := range cvss3Base {
		for v := range vals {
			cvss3Allowed[k] = append(cvss3Allowed[k], v)
		}
		cvss3Required = append(cvss3Required, k)
	}
}

// CVSS3Score is the base score of a CVSS v3.0/v3.1 vector (base metrics
// only, as GitHub's advisories carry), computed with the specification's
// formulas; false for a malformed vector.
func CVSS3Score(vector string) (float64, bool) {
	prefix := "CVSS:3.1/"
	if strings.HasPrefix(vector, "CVSS:3.0/") {
		prefix = "CVSS:3.0/"
	}
	m, ok := parseVector(vector, prefix, cvss3Allowed, cvss3Required)
	if !ok {
		return 0, false
	}
	w := func(k string) float64 { return cvss3Base[k][m[k]] }
	changed := m["S"] == "C"
	pr := w("PR")
	if changed {
		pr = map[string]float64{"N": 0.85, "L": 0.68, "H": 0.5}[m["PR"]]
	}
	iss := 1 - (1-w("C"))*(1-w("I"))*(1-w("A"))
	impact := 6.42 * iss
	if changed {
		impact = 7.52*(iss-0.029) - 3.25*math.Pow(iss-0.02, 15)
	}
	exploitability := 8.22 * w("AV") * w("AC") * pr * w("UI")
	if impact <= 0 {
		return 0, true
	}
	if changed {
		return roundUp(math.Min(1.08*(impact+exploitability), 10)), true
	}
	return roundUp(math.Min(impact+exploitability, 10)), true
}

// roundUp is CVSS v3.1's Roundup: the smallest number with one decimal
// that is at least x, computed on integers to avoid floating point
// surprises (specification, Appendix A).
func roundUp(x float64) float64 {
	i := int64(math.Round(x * 100000))
	if i%10000 == 0 {
		return float64(i) / 100000
	}
	return float64(i/10000+1) / 10
}

// cvss4Allowed are CVSS v4.0's metrics and their values (FIRST's CVSS
// v4.0 specification): the eleven base metrics are required, the threat,
// environmental and supplemental ones optional.
var cvss4Allowed = map[string][]string{
	"AV": {"N", "A", "L", "P"}, "AC": {"L", "H"}, "AT": {"N", "P"}, "PR": {"N", "L", "H"}, "UI": {"N", "P", "A"},
	"VC": {"H", "L", "N"}, "VI": {"H", "L", "N"}, "VA": {"H", "L", "N"},
	"SC": {"H", "L", "N"}, "SI": {"H", "L", "N"}, "SA": {"H", "L", "N"},
	"E":  {"X", "A", "P", "U"},
	"CR": {"X", "H", "M", "L"}, "IR": {"X", "H", "M", "L"}, "AR": {"X", "H", "M", "L"},
	"MAV": {"X", "N", "A", "L", "P"}, "MAC": {"X", "L", "H"}, "MAT": {"X", "N", "P"}, "MPR": {"X", "N", "L", "H"},
	"MUI": {"X", "N", "P", "A"}, "MVC": {"X", "H", "L", "N"}, "MVI": {"X", "H", "L", "N"}, "MVA": {"X", "H", "L", "N"},
	"MSC": {"X", "H", "L", "N"}, "MSI": {"X", "S", "H", "L", "N"}, "MSA": {"X", "S", "H", "L", "N"},
	"S": {"X", "N", "P"}, "AU": {"X", "N", "Y"}, "R": {"X", "A", "U", "I"}, "V": {"X", "D", "C"},
	"RE": {"X", "L", "M", "H"}, "U": {"X", "Clear", "Green", "Amber", "Red"},
}

var cvss4Required = []string{"AV", "AC", "AT", "PR", "UI", "VC", "VI", "VA", "SC", "SI", "SA"}

// ValidCVSS4 reports whether vector is a well-formed CVSS v4.0 vector.
// hubd does not compute v4 scores (the specification's MacroVector
// lookup): a v4 vector is stored with a null score.
func ValidCVSS4(vector string) bool {
	_, ok := parseVector(vector, "CVSS:4.0/", cvss4Allowed, cvss4Required)
	return ok
}

// SeverityOf is the qualitative rating of a CVSS score (specification,
// section 5); nil for 0.0 ("none", which advisories do not name).
func SeverityOf(score float64) *string {
	var s string
	switch {
	case score >= 9:
		s = "critical"
	case score >= 7:
		s = "high"
	case score >= 4:
		s = "medium"
	case score > 0:
		s = "low"
	default:
		return nil
	}
	return &s
}

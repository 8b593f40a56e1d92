package advisories

import (
	"crypto/rand"
	"math/big"
	"regexp"
)

// ghsaAlphabet is the alphabet of GHSA ids' groups.
const ghsaAlphabet = "23456789cfghjmpqrvwx"

// NewGHSAID is a random GHSA id: "GHSA-" and three groups of four.
func NewGHSAID() string {
	b := []byte("GHSA-xxxx-xxxx-xxxx")
	for i := 5; i < len(b); i++ {
		if b[i] == '-' {
			continue
		}
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(ghsaAlphabet))))
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		b[i] = ghsaAlphabet[n.Int64()]
	}
	return string(b)
}

var (
	ghsaRE = regexp.MustCompile(`^(?i)GHSA(-[23456789cfghjmpqrvwx]{4}){3}$`)
	cveRE  = regexp.MustCompile(`^CVE-\d{4}-\d{4,}$`)
	cweRE  = regexp.MustCompile(`^CWE-[1-9]\d{0,5}$`)
)

// ValidGHSAID reports whether s is shaped as a GHSA id.
func ValidGHSAID(s string) bool { return ghsaRE.MatchString(s) }

// cweNames names the weaknesses advisories cite most (MITRE's CWE list,
// the Top 25 and their neighbours); others keep their id as name.
var cweNames = map[string]string{
	"CWE-20":   "Improper Input Validation",
	"CWE-22":   "Improper Limitation of a Pathname to a Restricted Directory ('Path Traversal')",
	"CWE-77":   "Improper Neutralization of Special Elements used in a Command ('Command Injection')",
	"CWE-78":   "Improper Neutralization of Special Elements used in an OS Command ('OS Command Injection')",
	"CWE-79":   "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')",
	"CWE-89":   "Improper Neutralization of Special Elements used in an SQL Command ('SQL Injection')",
	"CWE-94":   "Improper Control of Generation of Code ('Code Injection')",
	"CWE-119":  "Improper Restriction of Operations within the Bounds of a Memory Buffer",
	"CWE-125":  "Out-of-bounds Read",
	"CWE-190":  "Integer Overflow or Wraparound",
	"CWE-200":  "Exposure of Sensitive Information to an Unauthorized Actor",
	"CWE-269":  "Improper Privilege Management",
	"CWE-276":  "Incorrect Default Permissions",
	"CWE-287":  "Improper Authentication",
	"CWE-306":  "Missing Authentication for Critical Function",
	"CWE-352":  "Cross-Site Request Forgery (CSRF)",
	"CWE-400":  "Uncontrolled Resource Consumption",
	"CWE-416":  "Use After Free",
	"CWE-434":  "Unrestricted Upload of File with Dangerous Type",
	"CWE-476":  "NULL Pointer Dereference",
	"CWE-502":  "Deserialization of Untrusted Data",
	"CWE-601":  "URL Redirection to Untrusted Site ('Open Redirect')",
	"CWE-787":  "Out-of-bounds Write",
	"CWE-798":  "Use of Hard-coded Credentials",
	"CWE-862":  "Missing Authorization",
	"CWE-863":  "Incorrect Authorization",
	"CWE-918":  "Server-Side Request Forgery (SSRF)",
	"CWE-1321": "Improperly Controlled Modification of Object Prototype Attributes ('Prototype Pollution')",
}

// CWEName is the name of a CWE id (the id itself when hubd's list lacks it).
func CWEName(id string) string {
	if n, ok := cweNames[id]; ok {
		return n
	}
	return id
}

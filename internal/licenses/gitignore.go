package licenses

import (
	"embed"
	"sort"
	"strings"
)

// The .gitignore templates, one file per language or tool, written for
// hubd. Names are GitHub's template names and, like GitHub's, case
// sensitive.
//
//go:embed gitignore/*.gitignore
var gitignoreFS embed.FS

var (
	gitignoreNames []string
	gitignores     = map[string]string{}
)

func init() {
	entries, err := gitignoreFS.ReadDir("gitignore")
	if err != nil {
		panic("licenses: gitignore templates: " + err.Error())
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".gitignore")
		b, err := gitignoreFS.ReadFile("gitignore/" + e.Name())
		if err != nil {
			panic("licenses: gitignore template " + name + ": " + err.Error())
		}
		gitignores[name] = string(b)
		gitignoreNames = append(gitignoreNames, name)
	}
	sort.Strings(gitignoreNames)
}

// Gitignore returns a template's source by its exact name.
func Gitignore(name string) (string, bool) {
	s, ok := gitignores[name]
	return s, ok
}

// GitignoreNames lists the templates, sorted.
func GitignoreNames() []string { return gitignoreNames }

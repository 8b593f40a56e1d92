package actions

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// JobEnvironment is the environment a job of a workflow names
// (`environment: NAME` or `environment: {name, url}`): "" when it names
// none, or when the name is an expression (evaluated by no one here yet).
func JobEnvironment(source, jobKey string) (name, url string) {
	var doc struct {
		Jobs map[string]struct {
			Environment yaml.Node `yaml:"environment"`
		} `yaml:"jobs"`
	}
	if yaml.Unmarshal([]byte(source), &doc) != nil {
		return "", ""
	}
	n := doc.Jobs[jobKey].Environment
	switch n.Kind {
	case yaml.ScalarNode:
		name = n.Value
	case yaml.MappingNode:
		var m struct {
			Name string `yaml:"name"`
			URL  string `yaml:"url"`
		}
		if n.Decode(&m) != nil {
			return "", ""
		}
		name, url = m.Name, m.URL
	}
	if strings.Contains(name, "${{") {
		return "", ""
	}
	return strings.TrimSpace(name), url
}

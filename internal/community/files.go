package community

import (
	"bytes"
	"context"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hubd/hubd/internal/gitrepo"
)

// FundingLink is one entry of .github/FUNDING.yml: GitHub's platform name
// (FundingPlatform) and the link it makes of the account named there.
type FundingLink struct {
	Platform string
	URL      string
}

// fundingPlatforms maps FUNDING.yml's keys to GitHub's platform and the
// link prefix of an account on it ("" for GITHUB, whose link is the
// server's own sponsors page).
var fundingPlatforms = map[string]struct{ platform, prefix string }{
	"github":           {"GITHUB", ""},
	"patreon":          {"PATREON", "https://www.patreon.com/"},
	"open_collective":  {"OPEN_COLLECTIVE", "https://opencollective.com/"},
	"ko_fi":            {"KO_FI", "https://ko-fi.com/"},
	"tidelift":         {"TIDELIFT", "https://tidelift.com/funding/github/"},
	"community_bridge": {"COMMUNITY_BRIDGE", "https://funding.communitybridge.org/projects/"},
	"liberapay":        {"LIBERAPAY", "https://liberapay.com/"},
	"issuehunt":        {"ISSUEHUNT", "https://issuehunt.io/r/"},
	"lfx_crowdfunding": {"LFX_CROWDFUNDING", "https://crowdfunding.lfx.linuxfoundation.org/projects/"},
	"polar":            {"POLAR", "https://polar.sh/"},
	"buy_me_a_coffee":  {"BUY_ME_A_COFFEE", "https://www.buymeacoffee.com/"},
	"thanks_dev":       {"THANKS_DEV", "https://thanks.dev/"},
	"custom":           {"CUSTOM", ""},
}

// Funding reads .github/FUNDING.yml of the tree root, in the file's order;
// web is the server's web root (GitHub Sponsors links). Unknown keys and
// empty values are left out, as GitHub's sidebar does; a file that is not
// YAML has no links.
func Funding(ctx context.Context, g *gitrepo.Repo, root, web string) ([]FundingLink, error) {
	data, err := readFile(ctx, g, root, ".github/FUNDING.yml")
	if err != nil || data == nil {
		return nil, err
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	m := doc.Content[0]
	var out []FundingLink
	for i := 0; i+1 < len(m.Content); i += 2 {
		p, ok := fundingPlatforms[m.Content[i].Value]
		if !ok {
			continue
		}
		for _, v := range scalars(m.Content[i+1]) {
			switch {
			case p.platform == "GITHUB":
				v = strings.TrimRight(web, "/") + "/sponsors/" + v
			case p.platform == "CUSTOM":
				if !strings.Contains(v, "://") {
					v = "https://" + v
				}
			default:
				v = p.prefix + v
			}
			out = append(out, FundingLink{Platform: p.platform, URL: v})
		}
	}
	return out, nil
}

// scalars are the non-empty strings of a scalar or a sequence of them.
func scalars(n *yaml.Node) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && s != "~" {
			out = append(out, s)
		}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			add(n.Value)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode && c.Tag != "!!null" {
				add(c.Value)
			}
		}
	}
	return out
}

// ContactLink is a contact_links entry of the issue template chooser.
type ContactLink struct{ Name, URL, About string }

// IssueConfig is the issue template chooser's config.yml.
type IssueConfig struct {
	BlankIssuesEnabled bool
	ContactLinks       []ContactLink
}

// templateDir is the issue or pull request template folder Scan found
// (nil when the tree has none, or a single file instead).
func templateDir(f *File) string {
	if f == nil || !f.Dir {
		return ""
	}
	return f.Path
}

// ReadIssueConfig reads config.yml (or config.yaml) of the issue template
// folder: blank issues are enabled unless it says otherwise; contact links
// lacking a name, url or about are left out, as GitHub's chooser does.
func ReadIssueConfig(ctx context.Context, g *gitrepo.Repo, root string, files Files) (IssueConfig, error) {
	cfg := IssueConfig{BlankIssuesEnabled: true}
	dir := templateDir(files.IssueTemplate)
	if dir == "" {
		return cfg, nil
	}
	var data []byte
	for _, name := range []string{"config.yml", "config.yaml"} {
		d, err := readFile(ctx, g, root, dir+"/"+name)
		if err != nil {
			return cfg, err
		}
		if d != nil {
			data = d
			break
		}
	}
	var doc struct {
		BlankIssuesEnabled *bool `yaml:"blank_issues_enabled"`
		ContactLinks       []struct {
			Name  string `yaml:"name"`
			URL   string `yaml:"url"`
			About string `yaml:"about"`
		} `yaml:"contact_links"`
	}
	if data == nil || yaml.Unmarshal(data, &doc) != nil {
		return cfg, nil
	}
	if doc.BlankIssuesEnabled != nil {
		cfg.BlankIssuesEnabled = *doc.BlankIssuesEnabled
	}
	for _, l := range doc.ContactLinks {
		if l.Name != "" && l.URL != "" && l.About != "" {
			cfg.ContactLinks = append(cfg.ContactLinks, ContactLink{Name: l.Name, URL: l.URL, About: l.About})
		}
	}
	return cfg, nil
}

// IssueTemplate is a Markdown issue template with its front matter.
type IssueTemplate struct {
	Filename, Name, About, Title, Body string
	Labels, Assignees                  []string
}

// IssueTemplates reads the Markdown templates of the issue template
// folder, by file name; a template without a name in its front matter is
// not offered (GitHub's chooser skips it too).
func IssueTemplates(ctx context.Context, g *gitrepo.Repo, root string, files Files) ([]IssueTemplate, error) {
	dir := templateDir(files.IssueTemplate)
	if dir == "" {
		return nil, nil
	}
	entries, err := readTree(ctx, g, root, dir+"/")
	if err != nil {
		return nil, err
	}
	var out []IssueTemplate
	for _, e := range markdownFiles(entries) {
		data, err := readFile(ctx, g, root, dir+"/"+e.Name)
		if err != nil {
			return nil, err
		}
		front, body, ok := frontMatter(data)
		if !ok {
			continue
		}
		var fm struct {
			Name      string    `yaml:"name"`
			About     string    `yaml:"about"`
			Title     string    `yaml:"title"`
			Labels    yaml.Node `yaml:"labels"`
			Assignees yaml.Node `yaml:"assignees"`
		}
		if yaml.Unmarshal(front, &fm) != nil || fm.Name == "" {
			continue
		}
		out = append(out, IssueTemplate{Filename: e.Name, Name: fm.Name, About: fm.About, Title: fm.Title,
			Body: string(body), Labels: commaList(&fm.Labels), Assignees: commaList(&fm.Assignees)})
	}
	return out, nil
}

// commaList reads a front matter list given as a sequence or as one
// comma-separated string.
func commaList(n *yaml.Node) []string {
	var out []string
	for _, s := range scalars(n) {
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// frontMatter splits "---\n<yaml>\n---\n<body>".
func frontMatter(data []byte) (front, body []byte, ok bool) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, found := bytes.CutPrefix(data, []byte("---\n"))
	if !found {
		return nil, nil, false
	}
	i := bytes.Index(rest, []byte("\n---"))
	if i < 0 {
		return nil, nil, false
	}
	// The body starts after the closing line and its blank lines.
	front, body = rest[:i+1], bytes.TrimLeft(rest[i+4:], " \t\n")
	return front, body, true
}

// markdownFiles are a tree's Markdown blobs, by name.
func markdownFiles(entries []gitrepo.TreeEntry) []gitrepo.TreeEntry {
	var out []gitrepo.TreeEntry
	for _, e := range entries {
		if e.Type() == "blob" && e.Mode != "120000" && strings.EqualFold(path.Ext(e.Name), ".md") {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PullRequestTemplate is a pull request template's file name and text.
type PullRequestTemplate struct{ Filename, Body string }

// PullRequestTemplates are the repository's pull request templates: the
// single template file Scan found, or the Markdown files of the
// PULL_REQUEST_TEMPLATE folder.
func PullRequestTemplates(ctx context.Context, g *gitrepo.Repo, root string, files Files) ([]PullRequestTemplate, error) {
	f := files.PRTemplate
	if f == nil {
		return nil, nil
	}
	if !f.Dir {
		_, data, err := g.Read(ctx, f.OID, maxFile)
		if err != nil {
			return nil, err
		}
		return []PullRequestTemplate{{Filename: path.Base(f.Path), Body: string(data)}}, nil
	}
	entries, err := readTree(ctx, g, root, f.Path+"/")
	if err != nil {
		return nil, err
	}
	var out []PullRequestTemplate
	for _, e := range markdownFiles(entries) {
		_, data, err := g.Read(ctx, e.OID, maxFile)
		if err != nil {
			return nil, err
		}
		out = append(out, PullRequestTemplate{Filename: e.Name, Body: string(data)})
	}
	return out, nil
}

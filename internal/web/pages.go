package web

import (
	"html/template"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/wire"
)

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"time":    func(t time.Time) string { return wire.Time(t) },
	"short":   func(s string) string { return s[:min(7, len(s))] },
	"summary": func(msg string) string { first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n"); return first },
}).Parse(`
{{define "layout"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;max-width:980px;margin:0 auto;padding:24px}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
h1{font-size:20px;font-weight:400;margin:0 0 8px}h1 strong{font-weight:600}
.meta{color:#59636e}.box{border:1px solid #d1d9e0;border-radius:6px;margin:16px 0}
.box>div{padding:8px 16px;border-top:1px solid #d1d9e0}.box>div:first-child{border-top:0;background:#f6f8fa}
.label{display:inline-block;border:1px solid #d1d9e0;border-radius:2em;padding:0 7px;font-size:12px;color:#59636e;margin-left:6px}
.state{display:inline-block;border-radius:2em;padding:2px 12px;color:#fff;background:#1f883d}.state.closed{background:#8250df}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}pre{background:#f6f8fa;padding:16px;overflow:auto;border-radius:6px}
.readme{padding:16px 32px}.readme img{max-width:100%}
</style>
</head>
<body>
{{if eq .Page "repo"}}{{template "repo" .Data}}{{else if eq .Page "issue"}}{{template "issue" .Data}}{{else if eq .Page "notfound"}}{{template "notfound"}}{{else}}{{template "error"}}{{end}}
</body>
</html>
{{end}}

{{define "repo"}}
<h1><a href="/{{.Repo.Owner.Login}}">{{.Repo.Owner.Login}}</a> / <strong><a href="/{{.Repo.Owner.Login}}/{{.Repo.Name}}">{{.Repo.Name}}</a></strong>
{{if .Private}}<span class="label">Private</span>{{else}}<span class="label">Public</span>{{end}}{{if .Repo.Archived}}<span class="label">Archived</span>{{end}}</h1>
{{with .Repo.Description}}<p>{{.}}</p>{{end}}
{{with .Repo.Homepage}}<p><a href="{{.}}" rel="nofollow noopener">{{.}}</a></p>{{end}}
{{if .Repo.Topics}}<p>{{range .Repo.Topics}}<span class="label">{{.}}</span>{{end}}</p>{{end}}
<p class="meta">Clone: <code>git clone {{.CloneURL}}</code></p>
{{if .Empty}}
<div class="box"><div>This repository is empty.</div><div>Push to <code>{{.CloneURL}}</code> to get started.</div></div>
{{else}}
<div class="box">
<div><strong>{{.Repo.DefaultBranch}}</strong> · {{with .Commit}}<code>{{short .OID}}</code> {{summary .Message}} <span class="meta">{{.Author.Name}}, {{time .Committer.When}}</span>{{end}}</div>
{{range .Entries}}<div>{{if eq .Type "tree"}}📁{{else if eq .Type "commit"}}📦{{else}}📄{{end}} {{.Name}}</div>
{{end}}</div>
{{if .Readme}}<div class="box"><div>README</div><div class="readme">{{.Readme}}</div></div>
{{else if .ReadmeRaw}}<div class="box"><div>README</div><div><pre>{{.ReadmeRaw}}</pre></div></div>{{end}}
{{end}}
{{end}}

{{define "issue"}}
<p class="meta"><a href="/{{.Repo.Owner.Login}}">{{.Repo.Owner.Login}}</a> / <a href="/{{.Repo.Owner.Login}}/{{.Repo.Name}}">{{.Repo.Name}}</a></p>
<h1><strong>{{.Issue.Title}}</strong> <span class="meta">#{{.Issue.Number}}</span></h1>
<p><span class="state{{if eq .Issue.State "closed"}} closed{{end}}">{{if eq .Issue.State "closed"}}Closed{{else}}Open{{end}}</span>
<span class="meta">{{.Kind}} opened by <strong>{{.Author}}</strong> on {{time .Issue.CreatedAt}} · {{.Issue.Comments}} comments</span></p>
<div class="box"><div><strong>{{.Author}}</strong></div><div class="readme">{{if .Body}}{{.Body}}{{else}}<p class="meta">No description provided.</p>{{end}}</div></div>
{{end}}

{{define "notfound"}}
<h1><strong>404</strong> — this is not the page you are looking for.</h1>
<p class="meta">The page does not exist, or you may not see it.</p>
{{end}}

{{define "error"}}
<h1><strong>500</strong> — something went wrong.</h1>
{{end}}
`))

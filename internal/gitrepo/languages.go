package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"path"
	"strconv"
	"strings"
	"sync"
)

// Languages sums the sizes of a commit's files by language, as GitHub's
// language bar does: files are classified by extension and well-known
// names, and vendored, generated and documentation paths are left out, as
// are data and prose formats (JSON, YAML, Markdown...), which GitHub does
// not count either. Sizes come from one `git ls-tree -r -l`, which reads
// object headers only: no blob is read. A commit's tree never changes, so
// the answer is remembered per commit (REST's /languages and GraphQL's
// languages share it); callers must not change the map.
func (r *Repo) Languages(ctx context.Context, commit string) (map[string]int64, error) {
	if !ValidOID(commit) {
		return nil, ErrNotFound
	}
	key := langKey{repo: r.ID, commit: commit}
	if stats, ok := r.m.langs.get(key); ok {
		return stats, nil
	}
	stats, err := r.languages(ctx, commit)
	if err == nil {
		r.m.langs.put(key, stats)
	}
	return stats, err
}

// langCache remembers language statistics by commit, bounded.
type langCache struct {
	mu sync.Mutex
	m  map[langKey]map[string]int64
}

type langKey struct {
	repo   int64
	commit string
}

const langCacheMax = 4096

func (c *langCache) get(k langKey) (map[string]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *langCache) put(k langKey, v map[string]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= langCacheMax {
		c.m = map[langKey]map[string]int64{}
	}
	c.m[k] = v
}

func (r *Repo) languages(ctx context.Context, commit string) (map[string]int64, error) {
	args := []string{"ls-tree", "-r", "-l", "-z", "--full-tree", commit}
	cmd := r.Cmd(ctx, nil, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stats := map[string]int64{}
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		rec, err := br.ReadString(0)
		if err != nil {
			break
		}
		// "<mode> SP <type> SP <oid> SP+ <size> TAB <path> NUL"
		meta, p, ok := strings.Cut(rec[:len(rec)-1], "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 || f[1] != "blob" || f[0] == "120000" {
			continue // submodules and symlinks are not code
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			continue
		}
		if lang := LanguageOf(p); lang != "" {
			stats[lang] += size
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, &GitError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return stats, nil
}

// LanguageOf is the language a path counts for in the statistics, "" when
// it does not count (unknown, data or prose, vendored, generated or
// documentation).
func LanguageOf(p string) string {
	if excluded(p) {
		return ""
	}
	base := path.Base(p)
	if l, ok := languageFilenames[base]; ok {
		return l
	}
	lower := strings.ToLower(base)
	switch {
	case strings.HasPrefix(base, "Dockerfile.") || strings.HasSuffix(lower, ".dockerfile") || strings.HasPrefix(base, "Containerfile."):
		return "Dockerfile"
	case strings.HasPrefix(base, "Makefile.") || strings.HasPrefix(base, "makefile."):
		return "Makefile"
	}
	ext := path.Ext(lower)
	if ext == "" {
		return ""
	}
	// Case matters for a few extensions (.R is R, .S is assembly).
	if l, ok := languageExtensions[path.Ext(base)]; ok {
		return l
	}
	return languageExtensions[ext]
}

// excluded reports vendored, generated and documentation paths.
func excluded(p string) bool {
	dirs := strings.Split(p, "/")
	base := dirs[len(dirs)-1]
	for _, d := range dirs[:len(dirs)-1] {
		if excludedDirs[d] || excludedDirs[strings.ToLower(d)] {
			return true
		}
	}
	lower := strings.ToLower(base)
	for _, s := range generatedSuffixes {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	if excludedFiles[base] {
		return true
	}
	// Bundled copies of common libraries.
	for _, lib := range []string{"jquery", "bootstrap", "modernizr", "underscore", "backbone", "d3."} {
		if strings.HasPrefix(lower, lib) && (strings.HasSuffix(lower, ".js") || strings.HasSuffix(lower, ".css")) {
			return true
		}
	}
	return false
}

// excludedDirs are directory names whose contents are vendored
// dependencies, build output or documentation (compared as written and
// lowercased).
var excludedDirs = map[string]bool{
	// dependencies
	"vendor": true, "vendors": true, "node_modules": true, "bower_components": true,
	"third_party": true, "third-party": true, "thirdparty": true, "3rdparty": true, "3rd-party": true,
	"deps": true, "dependencies": true, "Godeps": true, "Pods": true, "Carthage": true,
	".yarn": true, ".pnpm-store": true, "jspm_packages": true, "site-packages": true, ".venv": true,
	"venv": true, "__pycache__": true, ".bundle": true, "externals": true,
	// build output
	"dist": true, ".next": true, ".nuxt": true,
	// documentation
	"docs": true, "doc": true, "documentation": true, "Documentation": true, "examples": true,
	"example": true, "samples": true,
}

// generatedSuffixes are file name endings of generated or minified files.
var generatedSuffixes = []string{
	".min.js", ".min.css", "-min.js", "-min.css", ".js.map", ".css.map", ".bundle.js",
	".pb.go", ".pb.gw.go", "_pb2.py", "_pb2_grpc.py", ".pb.cc", ".pb.h", "_pb.js", "_pb.d.ts",
	".designer.cs", ".designer.vb", ".g.dart", ".freezed.dart", ".generated.go", "_generated.go",
	"_string.go", ".g.cs", ".g.i.cs",
}

// excludedFiles are well-known generated, build-tool or documentation files.
var excludedFiles = map[string]bool{
	"gradlew": true, "gradlew.bat": true, "mvnw": true, "mvnw.cmd": true, "configure": true,
	"config.guess": true, "config.sub": true, "install-sh": true, "ltmain.sh": true, "depcomp": true,
	"missing": true, "aclocal.m4": true, "Makefile.in": true,
}

// languageFilenames are files recognised by their whole name.
var languageFilenames = map[string]string{
	"Makefile": "Makefile", "makefile": "Makefile", "GNUmakefile": "Makefile", "BSDmakefile": "Makefile",
	"Dockerfile": "Dockerfile", "Containerfile": "Dockerfile", "dockerfile": "Dockerfile",
	"CMakeLists.txt": "CMake",
	"Rakefile":       "Ruby", "Gemfile": "Ruby", "Vagrantfile": "Ruby", "Podfile": "Ruby", "Fastfile": "Ruby",
	"Brewfile": "Ruby", "Guardfile": "Ruby", "Capfile": "Ruby", "Dangerfile": "Ruby", "Appfile": "Ruby",
	"Jenkinsfile": "Groovy",
	"BUILD":       "Starlark", "BUILD.bazel": "Starlark", "WORKSPACE": "Starlark", "WORKSPACE.bazel": "Starlark",
	"MODULE.bazel": "Starlark", "Tiltfile": "Starlark",
	"meson.build": "Meson", "meson_options.txt": "Meson",
	"justfile": "Just", "Justfile": "Just", ".justfile": "Just",
	".bashrc": "Shell", ".bash_profile": "Shell", ".bash_logout": "Shell", ".zshrc": "Shell",
	".zprofile": "Shell", ".zshenv": "Shell", ".profile": "Shell", "PKGBUILD": "Shell", "APKBUILD": "Shell",
	"Snakefile": "Snakemake", "Earthfile": "Earthly", "Nukefile": "Nu",
	".vimrc": "Vim Script", "_vimrc": "Vim Script", ".gvimrc": "Vim Script",
	".emacs": "Emacs Lisp", "_emacs": "Emacs Lisp",
}

// languageExtensions map extensions (lowercase, with a few case-sensitive
// ones) to GitHub's language names. Only programming and markup languages
// are listed: data and prose formats do not count in the statistics.
var languageExtensions = map[string]string{
	".go": "Go",
	".py": "Python", ".pyw": "Python", ".pyi": "Python", ".gyp": "Python", ".pyx": "Cython", ".pxd": "Cython",
	".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript", ".es6": "JavaScript",
	".ts": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".tsx": "TSX",
	".java": "Java", ".jsp": "Java Server Pages",
	".kt": "Kotlin", ".kts": "Kotlin",
	".scala": "Scala", ".sc": "Scala", ".sbt": "Scala",
	".groovy": "Groovy", ".gvy": "Groovy",
	".c": "C", ".h": "C",
	".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".c++": "C++", ".hpp": "C++", ".hh": "C++", ".hxx": "C++",
	".h++": "C++", ".inl": "C++", ".ipp": "C++", ".tpp": "C++", ".ino": "C++",
	".cs": "C#", ".csx": "C#", ".cshtml": "HTML+Razor", ".razor": "HTML+Razor",
	".m": "Objective-C", ".mm": "Objective-C++",
	".swift": "Swift",
	".rs":    "Rust",
	".rb":    "Ruby", ".rake": "Ruby", ".gemspec": "Ruby", ".ru": "Ruby", ".erb": "HTML+ERB",
	".php": "PHP", ".phtml": "PHP", ".php3": "PHP", ".php4": "PHP", ".php5": "PHP", ".phps": "PHP",
	".pl": "Perl", ".pm": "Perl", ".perl": "Perl", ".raku": "Raku", ".rakumod": "Raku",
	".lua": "Lua",
	".r":   "R", ".R": "R",
	".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".ksh": "Shell", ".fish": "fish", ".nu": "Nushell",
	".ps1": "PowerShell", ".psm1": "PowerShell", ".psd1": "PowerShell",
	".bat": "Batchfile", ".cmd": "Batchfile",
	".hs": "Haskell", ".lhs": "Literate Haskell",
	".ex": "Elixir", ".exs": "Elixir", ".heex": "HTML+EEX", ".eex": "HTML+EEX",
	".erl": "Erlang", ".hrl": "Erlang",
	".clj": "Clojure", ".cljs": "Clojure", ".cljc": "Clojure",
	".dart": "Dart",
	".jl":   "Julia",
	".ml":   "OCaml", ".mli": "OCaml", ".re": "Reason", ".res": "ReScript",
	".fs": "F#", ".fsi": "F#", ".fsx": "F#",
	".vb": "Visual Basic .NET", ".vbs": "VBScript", ".bas": "VBA",
	".asm": "Assembly", ".nasm": "Assembly", ".s": "Unix Assembly", ".S": "Unix Assembly",
	".f": "Fortran", ".for": "Fortran", ".f77": "Fortran",
	".f90": "Fortran Free Form", ".f95": "Fortran Free Form", ".f03": "Fortran Free Form", ".f08": "Fortran Free Form",
	".zig": "Zig", ".nim": "Nim", ".cr": "Crystal", ".v": "Verilog", ".sv": "SystemVerilog", ".svh": "SystemVerilog",
	".vhd": "VHDL", ".vhdl": "VHDL",
	".elm": "Elm", ".purs": "PureScript", ".gleam": "Gleam", ".odin": "Odin",
	".scm": "Scheme", ".ss": "Scheme", ".rkt": "Racket", ".lisp": "Common Lisp", ".lsp": "Common Lisp",
	".el": "Emacs Lisp", ".vim": "Vim Script",
	".tex": "TeX", ".sty": "TeX", ".ltx": "TeX",
	".html": "HTML", ".htm": "HTML", ".xhtml": "HTML",
	".css": "CSS", ".scss": "SCSS", ".sass": "Sass", ".less": "Less", ".styl": "Stylus",
	".vue": "Vue", ".svelte": "Svelte", ".astro": "Astro",
	".hbs": "Handlebars", ".handlebars": "Handlebars", ".mustache": "Mustache", ".twig": "Twig",
	".jinja": "Jinja", ".jinja2": "Jinja", ".j2": "Jinja", ".njk": "Nunjucks", ".liquid": "Liquid",
	".pug": "Pug", ".haml": "Haml", ".slim": "Slim", ".ejs": "EJS", ".tpl": "Smarty",
	".ipynb": "Jupyter Notebook",
	".sol":   "Solidity", ".move": "Move", ".cairo": "Cairo",
	".tf": "HCL", ".tfvars": "HCL", ".hcl": "HCL", ".nix": "Nix", ".bzl": "Starlark", ".star": "Starlark",
	".cmake": "CMake", ".mk": "Makefile", ".mak": "Makefile", ".dockerfile": "Dockerfile",
	".cu": "Cuda", ".cuh": "Cuda", ".glsl": "GLSL", ".vert": "GLSL", ".frag": "GLSL", ".hlsl": "HLSL",
	".metal": "Metal", ".wgsl": "WGSL",
	".pas": "Pascal", ".dpr": "Pascal", ".lpr": "Pascal",
	".adb": "Ada", ".ads": "Ada", ".cob": "COBOL", ".cbl": "COBOL", ".tcl": "Tcl", ".awk": "Awk",
	".coffee": "CoffeeScript", ".ls": "LiveScript", ".hx": "Haxe", ".st": "Smalltalk",
	".qml": "QML", ".jsonnet": "Jsonnet", ".libsonnet": "Jsonnet", ".feature": "Gherkin",
	".lean": "Lean", ".idr": "Idris", ".agda": "Agda", ".sml": "Standard ML",
	".sas": "SAS", ".do": "Stata", ".ado": "Stata", ".abap": "ABAP", ".wl": "Wolfram Language",
	".pde": "Processing", ".ahk": "AutoHotkey", ".applescript": "AppleScript", ".iss": "Inno Setup",
	".nsi": "NSIS", ".nsh": "NSIS", ".plsql": "PLSQL", ".pls": "PLSQL", ".pgsql": "PLpgSQL",
	".wat": "WebAssembly Text", ".mojo": "Mojo", ".vala": "Vala", ".cl": "OpenCL", ".prg": "xBase",
	".mdx": "MDX", ".xsl": "XSLT", ".xslt": "XSLT", ".thrift": "Thrift",
	".ps": "PostScript", ".pony": "Pony", ".red": "Red", ".rexx": "REXX", ".hack": "Hack",
	".apex": "Apex", ".trigger": "Apex", ".mq4": "MQL4", ".mq5": "MQL5",
	".gd": "GDScript", ".hlsli": "HLSL", ".shader": "ShaderLab", ".usf": "HLSL",
}

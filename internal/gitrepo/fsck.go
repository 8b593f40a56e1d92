package gitrepo

// fsckConfig checks every object a push brings, as GitHub does: a tree
// naming ".git" under any alias, "." or "..", or a name with a slash would
// break every clone and every archive, so receive-pack refuses the pack.
// Objects fetched into a repository (should hubd ever fetch) get the same
// checks. `index-pack --strict` turns git's warnings into errors; the one
// that old, widely copied histories carry and that GitHub accepts stays a
// warning, and the path checks are spelled out as errors so that no later
// default can relax them.
var fsckConfig = func() [][2]string {
	kv := [][2]string{
		{"receive.fsckObjects", "true"},
		{"transfer.fsckObjects", "true"},
		{"fetch.fsckObjects", "true"},
	}
	for _, m := range fsckLevels {
		kv = append(kv, [2]string{"receive.fsck." + m[0], m[1]}, [2]string{"fetch.fsck." + m[0], m[1]})
	}
	return kv
}()

// fsckLevels are git fsck message ids and the level hubd gives them.
var fsckLevels = [][2]string{
	// Trees written by early git versions (and the many projects imported
	// from them) have zero-padded modes; GitHub takes them.
	{"zeroPaddedFilemode", "warn"},
	{"hasDot", "error"},
	{"hasDotdot", "error"},
	{"hasDotgit", "error"},
	{"fullPathname", "error"},
	{"emptyName", "error"},
	{"nullSha1", "error"},
	{"gitmodulesSymlink", "error"},
}

// ReceiveArgs are the global options (before the subcommand) of every
// receive-pack: the fsck settings, so that repositories created before
// they were written to each repository's config are checked too.
func ReceiveArgs() []string {
	args := make([]string, 0, 2*len(fsckConfig))
	for _, kv := range fsckConfig {
		args = append(args, "-c", kv[0]+"="+kv[1])
	}
	return args
}

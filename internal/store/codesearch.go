package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// The code and commit search index (owned by internal/codeindex, searched
// by internal/search): per repository, the commit of the default branch
// last indexed, its text files and its commits. Words are looked up in a
// trigram index (FTS5 on SQLite, pg_trgm on PostgreSQL), never by reading
// every file.

type CodeFile = model.CodeFile

type CodeCommit = model.CodeCommit

// CodeIndexState is what the index holds of a repository: the branch and
// commit indexed ("" when never indexed).
func (q Q) CodeIndexState(ctx context.Context, repoID int64) (branch, commit string, err error) {
	err = q.row(ctx, `SELECT branch, commit_sha FROM code_index WHERE repo_id = ?`, repoID).Scan(&branch, &commit)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	return branch, commit, err
}

// CodeIndexUpdate is one step of a repository's index: files to write
// (replacing those at the same path), paths to remove, commits to add;
// Reset first empties the repository's index and forgets its commit (a
// first index, a history rewritten, the default branch changed). A
// Partial update leaves the commit indexed as it is; the last update of a
// run records Branch and Commit.
type CodeIndexUpdate struct {
	RepoID  int64
	Branch  string
	Commit  string // "" leaves the repository unindexed (nothing to index)
	Reset   bool
	Partial bool
	Files   []CodeFile
	Removed []string
	Commits []CodeCommit
}

// ApplyCodeIndex writes one update of a repository's index (call it in a
// transaction).
func (q Q) ApplyCodeIndex(ctx context.Context, u CodeIndexUpdate) error {
	// PostgreSQL's trigram counts: the files about to be replaced or
	// removed leave theirs, the files written add theirs.
	var replaced, written []string
	if q.s.pg {
		for _, f := range u.Files {
			written = append(written, f.Path)
		}
		if !u.Reset {
			replaced = append(slices.Clip(u.Removed), written...)
		}
		if err := q.codeTrigramCounts(ctx, u.RepoID, replaced, -1); err != nil {
			return err
		}
	}
	if u.Reset {
		if _, err := q.exec(ctx, `DELETE FROM code_files WHERE repo_id = ?`, u.RepoID); err != nil {
			return err
		}
		if q.s.pg {
			if _, err := q.exec(ctx, `DELETE FROM code_trigrams WHERE repo_id = ?`, u.RepoID); err != nil {
				return err
			}
		}
		if _, err := q.exec(ctx, `DELETE FROM code_commits WHERE repo_id = ?`, u.RepoID); err != nil {
			return err
		}
		if _, err := q.exec(ctx, `DELETE FROM code_index WHERE repo_id = ?`, u.RepoID); err != nil {
			return err
		}
	}
	for _, p := range u.Removed {
		if _, err := q.exec(ctx, `DELETE FROM code_files WHERE repo_id = ? AND path = ?`, u.RepoID, p); err != nil {
			return err
		}
	}
	for _, f := range u.Files {
		// Delete and insert (not an upsert): the FTS5 table follows inserts
		// and deletes through its triggers alike on both paths.
		if _, err := q.exec(ctx, `DELETE FROM code_files WHERE repo_id = ? AND path = ?`, u.RepoID, f.Path); err != nil {
			return err
		}
		if _, err := q.exec(ctx, `INSERT INTO code_files (repo_id, path, name, extension, language, sha, size, content)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, u.RepoID, f.Path, f.Name, f.Extension, f.Language, f.SHA, f.Size, f.Content); err != nil {
			return err
		}
	}
	if err := q.codeTrigramCounts(ctx, u.RepoID, written, +1); err != nil {
		return err
	}
	if len(replaced) > 0 {
		// Through code_trigrams_gone: the repository's rows come to zero,
		// not all of them.
		if _, err := q.exec(ctx, `DELETE FROM code_trigrams WHERE repo_id = ? AND files <= 0`, u.RepoID); err != nil {
			return err
		}
	}
	for _, c := range u.Commits {
		if _, err := q.exec(ctx, `INSERT INTO code_commits (repo_id, sha, tree_sha, parents, parent_count, message,
 author_name, author_email, author_date, author_tz, committer_name, committer_email, committer_date, committer_tz, author_id, committer_id)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (repo_id, sha) DO NOTHING`,
			u.RepoID, c.SHA, c.Tree, strings.Join(c.Parents, " "), len(c.Parents), c.Message,
			c.AuthorName, c.AuthorEmail, c.AuthorDate, c.AuthorTZ, c.CommitterName, c.CommitterEmail, c.CommitterDate, c.CommitterTZ,
			nullID(c.AuthorID), nullID(c.CommitterID)); err != nil {
			return err
		}
	}
	if u.Partial {
		return nil
	}
	if u.Commit == "" {
		_, err := q.exec(ctx, `DELETE FROM code_index WHERE repo_id = ?`, u.RepoID)
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO code_index (repo_id, branch, commit_sha, indexed_at) VALUES (?, ?, ?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET branch = excluded.branch, commit_sha = excluded.commit_sha, indexed_at = excluded.indexed_at`,
		u.RepoID, u.Branch, u.Commit, q.Now().Unix())
	return err
}

// codeTrigramCounts adds sign to PostgreSQL's count of a repository's
// files holding each trigram (code_trigrams) for each trigram of the
// files of the repository at paths (in their content or path, as pg_trgm
// extracts them: the trigrams its GIN indexes hold). One statement per
// 100 paths, each trigram's row written once, in the primary key's order.
func (q Q) codeTrigramCounts(ctx context.Context, repoID int64, paths []string, sign int) error {
	for start := 0; start < len(paths); start += 100 {
		in, args := inList(paths[start:min(len(paths), start+100)])
		if _, err := q.exec(ctx, `INSERT INTO code_trigrams (trigram, repo_id, files)
 SELECT t.t, ?, ? * COUNT(*) FROM code_files f,
 LATERAL (SELECT DISTINCT x FROM unnest(public.show_trgm(f.content) || public.show_trgm(f.path)) x) t(t)
 WHERE f.repo_id = ? AND f.path IN (`+in+`) GROUP BY t.t ORDER BY t.t
 ON CONFLICT (trigram, repo_id) DO UPDATE SET files = code_trigrams.files + excluded.files`,
			append([]any{repoID, sign, repoID}, args...)...); err != nil {
			return err
		}
	}
	return nil
}

// CodeIndexSize counts the files and commits indexed of a repository.
func (q Q) CodeIndexSize(ctx context.Context, repoID int64) (files, commits int, err error) {
	err = q.row(ctx, `SELECT (SELECT COUNT(*) FROM code_files WHERE repo_id = ?), (SELECT COUNT(*) FROM code_commits WHERE repo_id = ?)`,
		repoID, repoID).Scan(&files, &commits)
	return files, commits, err
}

// --- searching -----------------------------------------------------------------

// CodeSearch is a search of the indexed files of the repositories Viewer
// may see.
type CodeSearch struct {
	Viewer Viewer
	Cond   SearchCond
	Sort   string // indexed; "" best match (repository, then path)
	Desc   bool
	Limit  int
	Offset int
}

type CodeHit = model.CodeHit

// codeSearchFrom joins no accounts: the visibility rule reads the
// owner's default permission only for the viewer's organizations
// (codeOrgAccess). PostgreSQL estimates a word's files from statistics
// that see few of them, and with a path: condition thought one file
// matched: it joined the owners by scanning the accounts for each of
// 2,000 files (135 ms).
const codeSearchFrom = ` FROM code_files f JOIN code_index ci ON ci.repo_id = f.repo_id JOIN repos r ON r.id = f.repo_id` + viewerJoins

// codeOrgAccess is orgAccess reading the owner's default permission by
// its key where the viewer is a member of the owner.
var codeOrgAccess = strings.Replace(orgAccess, "a.default_repo_permission",
	"(SELECT ao.default_repo_permission FROM accounts ao WHERE ao.id = r.owner_id)", 1)

const codeSearchCols = `f.id, f.repo_id, f.path, f.name, f.extension, f.language, f.sha, f.size, f.content, ci.commit_sha, ci.indexed_at`

// SearchCountCap is where the counts of code and commit searches stop: a
// search matching more tells this many (counting a million matches to
// page through the first thousand costs more than the page).
const SearchCountCap = 10_000

// narrowFiles is the most files a code search may keep by its indexed
// conditions for its words to be tested file by file (codeSearchMode).
const narrowFiles = 5_000

// SearchCode returns one page of the files f selects and their total (at
// most SearchCountCap).
func (q Q) SearchCode(ctx context.Context, f CodeSearch) ([]*CodeHit, int, error) {
	mode, err := q.codeMode(ctx, f.Cond)
	if err != nil {
		return nil, 0, err
	}
	s := visibleToAccess(f.Viewer, codeOrgAccess)
	if err := s.compile(f.Cond, func(s *sqlb, c SearchCond) error { return q.codeLeaf(ctx, s, c, mode) }); err != nil {
		return nil, 0, err
	}
	// Best match is the order files were indexed in (by repository and
	// path for a repository's first index): the order the trigram index
	// hands its matches over in, so the page needs no sort of them all.
	order := " ORDER BY f.id"
	if f.Sort == "indexed" {
		dir := direction(f.Desc)
		order = " ORDER BY ci.indexed_at" + dir + ", f.id" + dir
	}
	scan := func(rows *sql.Rows) (*CodeHit, error) {
		h := &CodeHit{}
		x := &h.File
		return h, rows.Scan(&x.ID, &x.RepoID, &x.Path, &x.Name, &x.Extension, &x.Language, &x.SHA, &x.Size, &x.Content,
			&h.Commit, &h.IndexedAt)
	}
	// One pass over the matches finds them all (their ids and when their
	// repositories were indexed) when they are fewer than the count's
	// cap: the total, and the page, sorted here and read by id. Finding a
	// word's files is the search's cost (the trigram index, or LIKE over
	// the files a scope keeps), and a count then a page paid it twice.
	// As many matches as the cap page in SQL (their count is the cap's).
	keys, err := q.codeMatchKeys(ctx, s)
	if err != nil {
		return nil, 0, err
	}
	if len(keys) >= codeKeysCap {
		p := searchPage{from: codeSearchFrom, cols: codeSearchCols, where: s, order: order,
			limit: f.Limit, offset: f.Offset, countCap: SearchCountCap}
		if codeKeysCap >= SearchCountCap {
			p.total = SearchCountCap
		}
		return runSearch(ctx, q, p, scan)
	}
	total := len(keys)
	desc := f.Sort == "indexed" && f.Desc
	slices.SortFunc(keys, func(a, b codeMatchKey) int {
		c := cmp.Compare(a.id, b.id)
		if f.Sort == "indexed" && a.indexedAt != b.indexedAt {
			c = cmp.Compare(a.indexedAt, b.indexedAt)
		}
		if desc {
			c = -c
		}
		return c
	})
	limit := limitOr30(f.Limit)
	if f.Offset >= total {
		return []*CodeHit{}, total, nil
	}
	page := keys[f.Offset:min(total, f.Offset+limit)]
	ids := make([]int64, len(page))
	for i, k := range page {
		ids[i] = k.id
	}
	in, args := inList(ids)
	rows, err := q.searchRows(ctx, `SELECT `+codeSearchCols+` FROM code_files f JOIN code_index ci ON ci.repo_id = f.repo_id
 WHERE f.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	byID := make(map[int64]*CodeHit, len(ids))
	for rows.Next() {
		h, err := scan(rows)
		if err != nil {
			return nil, 0, err
		}
		byID[h.File.ID] = h
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	out := make([]*CodeHit, 0, len(ids))
	for _, id := range ids {
		// A file re-indexed since the first query is left out of the page.
		if h := byID[id]; h != nil {
			out = append(out, h)
		}
	}
	return out, total, nil
}

// codeKeysCap (a variable for tests) is how many matches a code search
// reads the keys of at most: SearchCountCap, so that a search that finds
// as many reads only its page next (its count is the cap).
var codeKeysCap = SearchCountCap

// codeMatchKey is what a code search sorts a match by.
type codeMatchKey struct{ id, indexedAt int64 }

// codeMatchKeys reads the keys of a code search's matches (where is its
// WHERE), at most codeKeysCap of them.
func (q Q) codeMatchKeys(ctx context.Context, where *sqlb) ([]codeMatchKey, error) {
	rows, err := q.searchRows(ctx, `SELECT f.id, ci.indexed_at`+codeSearchFrom+where.b.String()+` LIMIT ?`,
		append(slices.Clip(where.args), codeKeysCap)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []codeMatchKey
	for rows.Next() {
		var k codeMatchKey
		if err := rows.Scan(&k.id, &k.indexedAt); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// codeSearchMode is how a code search finds its files.
type codeSearchMode struct {
	// scan tests words file by file (LIKE) rather than through the
	// trigram index: a word made of common trigrams costs the index a
	// walk of the whole corpus, while a repo: search reads a few hundred
	// files.
	scan bool
	// scoped: repo:, user: or org: narrow the search, and their index
	// (not extension:'s or filename:'s) finds its files.
	scoped bool
}

// codeMode chooses a code search's mode: scan when the files its indexed
// conditions keep (repo:, user:, org:, or else extension:, filename:) are
// at most narrowFiles, counted no further. PostgreSQL needs the choice
// made for it too: its planner estimates a word's files from statistics
// that know nothing of the cost of the trigram index's common trigrams,
// and found a repo: search's word through the whole index (300 ms over
// a million files where the repository's 500 take 2).
func (q Q) codeMode(ctx context.Context, c SearchCond) (codeSearchMode, error) {
	conds := narrowing(c)
	if len(conds) == 0 || !hasText(c) {
		// No word to test: the mode changes nothing but the index that
		// finds the files, which SQLite then chooses itself.
		return codeSearchMode{}, nil
	}
	var scope []SearchCond
	for _, k := range conds {
		if k.Op == CondOr || k.Field == "repo" || k.Field == "owner" {
			scope = append(scope, k)
		}
	}
	mode := codeSearchMode{scoped: len(scope) > 0}
	if mode.scoped {
		conds = scope
	}
	var s sqlb
	s.w(`SELECT COUNT(*) FROM (SELECT 1 FROM code_files f JOIN repos r ON r.id = f.repo_id WHERE `)
	if err := s.compile(CondAll(conds...), func(s *sqlb, c SearchCond) error { return q.codeLeaf(ctx, s, c, mode) }); err != nil {
		return mode, err
	}
	s.w(` LIMIT ?) n`)
	s.arg(narrowFiles + 1)
	var n int
	if err := q.searchRow(ctx, s.b.String(), s.args...).Scan(&n); err != nil {
		return mode, err
	}
	mode.scan = n <= narrowFiles
	return mode, nil
}

// hasText reports whether c tests a word.
func hasText(c SearchCond) bool {
	if c.Op == CondLeaf {
		return c.Field == "text"
	}
	return slices.ContainsFunc(c.Kids, hasText)
}

// narrowing lists the conditions every match of c meets that an index
// finds the files of: repo:, user:/org:, extension: and filename: leaves
// (the first two also ORed together), alone or among ANDed conditions.
func narrowing(c SearchCond) []SearchCond {
	switch c.Op {
	case CondLeaf:
		switch c.Field {
		case "repo", "owner", "extension", "filename":
			return []SearchCond{c}
		}
	case CondOr:
		for _, k := range c.Kids {
			if k.Op != CondLeaf || k.Field != "repo" && k.Field != "owner" {
				return nil
			}
		}
		if len(c.Kids) > 0 {
			return []SearchCond{c}
		}
	case CondAnd:
		var out []SearchCond
		for _, k := range c.Kids {
			out = append(out, narrowing(k)...)
		}
		return out
	}
	return nil
}

// trigramText writes a word test through the trigram index: the FTS5
// table ftsTable's columns (the fields of a text leaf) on SQLite; the
// pg_trgm-indexed column expressions exprs, ORed, on PostgreSQL. Words
// shorter than three characters cannot use a trigram index, and those of
// a narrow scan (few rows to test) need not: they are tested with LIKE on
// exprs.
func (q Q) trigramText(ctx context.Context, s *sqlb, idExpr, ftsTable string, columns, exprs []string, word string, scan bool) error {
	word = strings.ToLower(word)
	like := func() {
		s.w("(")
		for i, expr := range exprs {
			if i > 0 {
				s.w(" OR ")
			}
			if q.s.pg {
				s.w(expr, " ILIKE ? ESCAPE '\\'")
				s.arg(likeArg(word))
			} else {
				s.like(expr, word)
			}
		}
		s.w(")")
	}
	if scan {
		// LOWER(expr) LIKE: no trigram index serves it, on either
		// database, so the narrowing conditions' index finds the rows.
		s.w("(")
		for i, expr := range exprs {
			if i > 0 {
				s.w(" OR ")
			}
			s.like(expr, word)
		}
		s.w(")")
		return nil
	}
	if q.s.pg && ftsTable == "code_fts" && !NoCodeTrigramCounts {
		pats, err := q.rareTrigramPatterns(ctx, word)
		if err != nil {
			return err
		}
		if len(pats) > 0 {
			// The files holding the word's rarest trigrams (one GIN scan
			// of each column reads only their posting lists), then the
			// word itself tested in each of them, through an expression no
			// trigram index serves (else the planner would look it up in
			// the index too, all its trigrams' lists with it).
			s.w("(")
			for i, expr := range exprs {
				if i > 0 {
					s.w(" OR ")
				}
				s.w("(")
				for j, p := range pats {
					if j > 0 {
						s.w(" AND ")
					}
					s.w(expr, " ILIKE ? ESCAPE '\\'")
					s.arg(likeArg(p))
				}
				s.w(")")
			}
			s.w(") AND (")
			for i, expr := range exprs {
				if i > 0 {
					s.w(" OR ")
				}
				s.w("(", expr, " || '') ILIKE ? ESCAPE '\\'")
				s.arg(likeArg(word))
			}
			s.w(")")
			return nil
		}
	}
	if q.s.pg || len([]rune(word)) < 3 {
		like()
		return nil
	}
	colset := "{" + strings.Join(columns, " ") + "} : "
	rare, err := q.rareTrigrams(ctx, ftsTable, colset, word)
	if err != nil {
		return err
	}
	if len(rare) > 0 {
		// The files holding the word's rarest trigrams (anywhere), then
		// the word itself tested in each of them.
		for i, t := range rare {
			rare[i] = colset + ftsString(t)
		}
		s.w(idExpr, " IN (SELECT rowid FROM ", ftsTable, " WHERE ", ftsTable, " MATCH ?) AND ")
		s.arg(strings.Join(rare, " AND "))
		like()
		return nil
	}
	// A quoted FTS5 string is a phrase of its trigrams: the word as a
	// substring, case-insensitively, in any of the columns.
	s.w(idExpr, " IN (SELECT rowid FROM ", ftsTable, " WHERE ", ftsTable, " MATCH ?)")
	s.arg(colset + ftsString(word))
	return nil
}

// ftsString quotes s as an FTS5 string.
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// rareTrigramCap (a variable for tests) is how many rows of the trigram index rareTrigrams reads
// of each trigram at most: the cost of a trigram's count, and the most
// files a word's rarest trigrams may leave to test one by one.
var rareTrigramCap = 20_000

// rareTrigrams are the rarest (at most 3) of word's trigrams found in
// fewer than rareTrigramCap rows of the FTS5 table ftsTable (columns
// colset), rarest first; none when every trigram is that common, or when
// the word is not ASCII (LIKE, which then tests the word in the rows they
// find, folds only ASCII case as the trigram index does all of Unicode).
// Each count reads its trigram's rows up to the cap: a phrase of common
// trigrams costs the trigram index a walk of them all, while the rare
// ones find a few rows to test.
func (q Q) rareTrigrams(ctx context.Context, ftsTable, colset, word string) ([]string, error) {
	for _, r := range word {
		if r >= 0x80 {
			return nil, nil
		}
	}
	type tri struct {
		t string
		n int
	}
	var list []tri
	seen := map[string]bool{}
	for i := 0; i+3 <= len(word); i++ {
		t := word[i : i+3]
		if seen[t] {
			continue
		}
		seen[t] = true
		var n int
		if err := q.searchRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM `+ftsTable+` WHERE `+ftsTable+` MATCH ? LIMIT ?) n`,
			colset+ftsString(t), rareTrigramCap).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			return []string{t}, nil // no file holds the word
		}
		if n < rareTrigramCap {
			list = append(list, tri{t, n})
		}
	}
	slices.SortStableFunc(list, func(a, b tri) int { return a.n - b.n })
	var out []string
	for _, t := range list[:min(len(list), 3)] {
		out = append(out, t.t)
	}
	return out, nil
}

// NoCodeTrigramCounts turns off, on PostgreSQL, the choice of a word's
// rarest trigrams: the word's files are found through all its trigrams,
// as before the counts were kept. For bench/codesearchbench, which
// measures both on one index; nothing else sets it.
var NoCodeTrigramCounts bool

// rareTrigramFiles is the most files a trigram may be counted in for
// rareTrigramPatterns to look its posting list up (a word's files are
// found through at most three such, and tested one by one), and
// rareTrigramRepos how many repositories' counts of a trigram it reads
// at most (a trigram in more is common). Variables for tests.
var rareTrigramFiles, rareTrigramRepos = 100_000, 5_000

// rareTrigramPatterns chooses, on PostgreSQL, how a code search finds the
// files that may hold word (lower case) through the pg_trgm indexes: up to
// three substrings of word, each of which pg_trgm's LIKE support turns
// into one trigram of word, the rarest ones by the index job's counts
// (code_trigrams), rarest first. Each is found in every file holding the
// word, so the files holding all of them include those holding the word;
// the counts choose only which lists are read. None when word is not
// ASCII, has no such trigram, or when all of them are common (then the
// whole word's trigrams narrow the files best).
//
// pg_trgm's trigrams are those of each word (a run of letters and digits)
// padded with two spaces before and one after; in a LIKE pattern a
// wildcard side is not padded. So three letters or digits of word, as a
// pattern, are exactly their trigram, and the last two of a run that a
// non-word character ends, with that character, are the run's end ("42("
// gives "42 ").
func (q Q) rareTrigramPatterns(ctx context.Context, word string) ([]string, error) {
	type tri struct {
		pattern, trigram string
		files            int64
	}
	isWord := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	var list []tri
	seen := map[string]bool{}
	add := func(pattern, trigram string) {
		if !seen[trigram] {
			seen[trigram] = true
			list = append(list, tri{pattern: pattern, trigram: trigram})
		}
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= 0x80 {
			return nil, nil
		}
		if !isWord(c) {
			// A run's end: the wildcard characters (escaped in the
			// pattern) are left out, as pg_trgm's escapes are subtle.
			if i >= 2 && isWord(word[i-1]) && isWord(word[i-2]) && c != '%' && c != '_' && c != '\\' {
				add(word[i-2:i+1], word[i-2:i]+" ")
			}
			continue
		}
		if i >= 2 && isWord(word[i-1]) && isWord(word[i-2]) {
			add(word[i-2:i+1], word[i-2:i+1])
		}
	}
	for i := range list {
		var rows int64
		if err := q.searchRow(ctx, `SELECT COALESCE(SUM(files), 0), COUNT(*) FROM (SELECT files FROM code_trigrams WHERE trigram = ? LIMIT ?) n`,
			list[i].trigram, rareTrigramRepos).Scan(&list[i].files, &rows); err != nil {
			return nil, err
		}
		if rows >= int64(rareTrigramRepos) {
			list[i].files = math.MaxInt64
		}
	}
	slices.SortStableFunc(list, func(a, b tri) int { return cmp.Compare(a.files, b.files) })
	var out []string
	for _, t := range list[:min(len(list), 3)] {
		if t.files < int64(rareTrigramFiles) {
			out = append(out, t.pattern)
		}
	}
	return out, nil
}

// codeLeaf writes the predicates of code fields in a search of mode m.
func (q Q) codeLeaf(ctx context.Context, s *sqlb, c SearchCond, m codeSearchMode) error {
	// A scoped search does not find its files through the index of
	// extension or name: unary + hides a column from SQLite's planner,
	// concatenating '' from PostgreSQL's.
	unindexed := func(expr string) string {
		switch {
		case !m.scoped:
			return expr
		case q.s.pg:
			return "(" + expr + " || '')"
		}
		return "+" + expr
	}
	switch c.Field {
	case "text":
		var columns, exprs []string
		for _, in := range c.In {
			switch in {
			case "file":
				columns, exprs = append(columns, "content"), append(exprs, "f.content")
			case "path":
				columns, exprs = append(columns, "path"), append(exprs, "f.path")
			default:
				return fmt.Errorf("store: search: no code text field %q", in)
			}
		}
		if len(columns) == 0 {
			s.w("1 = 0")
			return nil
		}
		return q.trigramText(ctx, s, "f.id", "code_fts", columns, exprs, c.Text, m.scan)
	case "repo", "owner", "visibility", "fork":
		repoScopeLeaf(s, c, "f.repo_id")
	case "language":
		s.w("LOWER(f.language) = ?")
		s.arg(strings.ToLower(c.Text))
	case "extension":
		s.w(unindexed("f.extension"), " = ?")
		s.arg(strings.ToLower(strings.TrimPrefix(c.Text, ".")))
	case "filename":
		s.w("LOWER(", unindexed("f.name"), ") = ?")
		s.arg(strings.ToLower(c.Text))
	case "path":
		// path:DIR keeps files in a directory DIR (at any depth, and in
		// its subdirectories); path:/ keeps those at the root.
		dir := strings.Trim(strings.ToLower(c.Text), "/")
		if dir == "" {
			s.w("f.path NOT LIKE '%/%'")
			return nil
		}
		s.w("('/' || LOWER(f.path)) LIKE ? ESCAPE '\\'")
		s.arg("%/" + strings.Trim(likeArg(dir), "%") + "/%")
	case "size":
		s.inRange("f.size", c.Range)
	default:
		return fmt.Errorf("store: search: unknown code field %q", c.Field)
	}
	return nil
}

// repoScopeLeaf writes the repository fields the indexed kinds share
// (repo, owner, visibility, fork) for rows whose repository id is repoID
// and whose repository is r.
func repoScopeLeaf(s *sqlb, c SearchCond, repoID string) {
	switch c.Field {
	case "repo":
		s.ids(repoID, c.IDs)
	case "owner":
		s.ids("r.owner_id", c.IDs)
	case "visibility":
		s.w("r.visibility = ?")
		s.arg(c.Text)
	case "fork":
		s.w("r.parent_id IS NOT NULL")
	}
}

// CommitSearch is a search of the indexed commits of the repositories
// Viewer may see.
type CommitSearch struct {
	Viewer Viewer
	Cond   SearchCond
	Sort   string // author-date, committer-date; "" best match (newest commit first)
	Desc   bool
	Limit  int
	Offset int
}

const commitSearchFrom = ` FROM code_commits cc JOIN repos r ON r.id = cc.repo_id JOIN accounts a ON a.id = r.owner_id` + viewerJoins

const commitSearchCols = `cc.repo_id, cc.sha, cc.tree_sha, cc.parents, cc.message, cc.author_name, cc.author_email,
 cc.author_date, cc.author_tz, cc.committer_name, cc.committer_email, cc.committer_date, cc.committer_tz,
 COALESCE(cc.author_id, 0), COALESCE(cc.committer_id, 0),
 (SELECT COUNT(*) FROM commit_comments x WHERE x.repo_id = cc.repo_id AND x.commit_id = cc.sha)`

// SearchCommits returns one page of the commits f selects and their total
// (at most SearchCountCap).
func (q Q) SearchCommits(ctx context.Context, f CommitSearch) ([]*CodeCommit, int, error) {
	s := visibleTo(f.Viewer)
	if err := s.compile(f.Cond, func(s *sqlb, c SearchCond) error { return q.commitLeaf(ctx, s, c) }); err != nil {
		return nil, 0, err
	}
	dir := direction(f.Desc)
	order := " ORDER BY cc.committer_date DESC, cc.id DESC"
	switch f.Sort {
	case "author-date":
		order = " ORDER BY cc.author_date" + dir + ", cc.id" + dir
	case "committer-date":
		order = " ORDER BY cc.committer_date" + dir + ", cc.id" + dir
	}
	return runSearch(ctx, q, searchPage{from: commitSearchFrom, cols: commitSearchCols, where: s, order: order,
		limit: f.Limit, offset: f.Offset, countCap: SearchCountCap}, func(rows *sql.Rows) (*CodeCommit, error) {
		c := &CodeCommit{}
		var parents string
		err := rows.Scan(&c.RepoID, &c.SHA, &c.Tree, &parents, &c.Message, &c.AuthorName, &c.AuthorEmail,
			&c.AuthorDate, &c.AuthorTZ, &c.CommitterName, &c.CommitterEmail, &c.CommitterDate, &c.CommitterTZ,
			&c.AuthorID, &c.CommitterID, &c.CommentCount)
		c.Parents = strings.Fields(parents)
		return c, err
	})
}

// commitLeaf writes the predicates of commit fields.
func (q Q) commitLeaf(ctx context.Context, s *sqlb, c SearchCond) error {
	switch c.Field {
	case "text":
		return q.trigramText(ctx, s, "cc.id", "code_commits_fts", []string{"message"}, []string{"cc.message"}, c.Text, false)
	case "repo", "owner", "visibility":
		repoScopeLeaf(s, c, "cc.repo_id")
	case "author":
		s.ids("COALESCE(cc.author_id, 0)", c.IDs)
	case "committer":
		s.ids("COALESCE(cc.committer_id, 0)", c.IDs)
	case "author_name":
		s.like("cc.author_name", c.Text)
	case "committer_name":
		s.like("cc.committer_name", c.Text)
	case "author_email":
		s.w("LOWER(cc.author_email) = ?")
		s.arg(strings.ToLower(c.Text))
	case "committer_email":
		s.w("LOWER(cc.committer_email) = ?")
		s.arg(strings.ToLower(c.Text))
	case "author_date":
		s.inRange("cc.author_date", c.Range)
	case "committer_date":
		s.inRange("cc.committer_date", c.Range)
	case "merge":
		if boolText(c) {
			s.w("cc.parent_count > 1")
		} else {
			s.w("cc.parent_count <= 1")
		}
	case "hash":
		s.w("cc.sha LIKE ?")
		s.arg(strings.ToLower(c.Text) + "%")
	case "tree":
		s.w("cc.tree_sha LIKE ?")
		s.arg(strings.ToLower(c.Text) + "%")
	case "parent":
		// parents holds the ids separated by spaces.
		s.w("(' ' || cc.parents) LIKE ?")
		s.arg("% " + strings.ToLower(c.Text) + "%")
	default:
		return fmt.Errorf("store: search: unknown commit field %q", c.Field)
	}
	return nil
}

// ReposUnindexed lists, in id order, up to limit repositories after id
// after that the code index holds nothing of (created before the index
// existed, or never pushed).
func (q Q) ReposUnindexed(ctx context.Context, after int64, limit int) ([]int64, error) {
	return q.int64s(ctx, `SELECT r.id FROM repos r WHERE r.id > ? AND NOT EXISTS (SELECT 1 FROM code_index ci WHERE ci.repo_id = r.id)
 ORDER BY r.id LIMIT ?`, after, limit)
}

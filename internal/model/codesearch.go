package model

// CodeFile is one indexed file of a repository's default branch.
type CodeFile struct {
	ID        int64
	RepoID    int64
	Path      string
	Name      string
	Extension string // without the dot, lower case ("" when none)
	Language  string
	SHA       string // the blob
	Size      int64
	Content   string
}

// CodeCommit is one indexed commit of a repository's default branch.
type CodeCommit struct {
	RepoID         int64
	SHA, Tree      string
	Parents        []string
	Message        string
	AuthorName     string
	AuthorEmail    string
	AuthorDate     int64 // unix seconds
	AuthorTZ       int   // offset east of UTC, in minutes
	CommitterName  string
	CommitterEmail string
	CommitterDate  int64
	CommitterTZ    int
	AuthorID       int64 // the account the author's address belongs to (0: none)
	CommitterID    int64
	CommentCount   int // read by searches only
}

// CodeHit is a file found, with its repository and the commit indexed.
type CodeHit struct {
	File      CodeFile
	Commit    string
	IndexedAt int64
}

package migrations

import (
	"archive/tar"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Import reads a migration archive (GitHub's layout, as export writes it)
// into hubd. Accounts are mapped: each user of the archive becomes the
// local account a mapping names, else the one of the same login, else the
// one of its primary email; the rest are unknown and their records are
// kept without an author (GitHub's ghost), unless the import is told to
// make them suspended accounts (ImportOptions.UnknownUsers). Each
// repository is written in one transaction with its records' own times,
// appending its domain events, and then receives its git data. Conflicts
// (a taken repository name, an owner that does not exist, an unknown
// user) are reported in ghe-migrator's shape; a repository in conflict is
// skipped.

// ImportOptions say what to import and how.
type ImportOptions struct {
	// ActorID is the site administrator importing (the actor of the
	// repositories' creation events).
	ActorID int64
	// Mapping maps a source URL (or a source login) to a target URL (or
	// login, or owner/name for a repository): ParseMapping reads
	// ghe-migrator's CSV.
	Mapping map[string]string
	// DryRun only reports the conflicts.
	DryRun bool
	// UnknownUsers is what becomes of an archive's user no account matches
	// (ghe-migrator's mapping to the ghost, or creating the user):
	// UnknownReport (the default) imports their records without an author
	// and reports a conflict; UnknownGhost does the same without one;
	// UnknownCreate makes each a suspended account from its archive record.
	UnknownUsers string
}

// What becomes of an archive's unknown users (ImportOptions.UnknownUsers).
const (
	UnknownReport = "report"
	UnknownGhost  = "ghost"
	UnknownCreate = "create"
)

// Conflict is one row of ghe-migrator's conflicts CSV.
type Conflict struct {
	ModelName         string `json:"model_name"`
	SourceURL         string `json:"source_url"`
	TargetURL         string `json:"target_url"`
	RecommendedAction string `json:"recommended_action"`
	Notes             string `json:"notes,omitempty"`
}

// ImportedRepo is a repository the import wrote.
type ImportedRepo struct {
	SourceURL string `json:"source_url"`
	FullName  string `json:"full_name"`
	ID        int64  `json:"id"`
	Issues    int    `json:"issues"`
	Pulls     int    `json:"pull_requests"`
}

// ImportReport is what an import did and what it could not do.
type ImportReport struct {
	Conflicts    []Conflict     `json:"conflicts"`
	Repositories []ImportedRepo `json:"repositories"`
	MappedUsers  int            `json:"mapped_users"`
	// CreatedUsers are the logins of the suspended accounts made for
	// unknown users (UnknownCreate; those a dry run would make).
	CreatedUsers []string `json:"created_users"`
}

// ParseMapping reads a mapping file: CSV rows of model_name, source_url,
// target_url and optionally recommended_action (ghe-migrator's conflicts
// file, edited), a header row allowed. A row whose action is "skip" is
// left out.
func ParseMapping(r io.Reader) (map[string]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	out := map[string]string{}
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("mapping line %d: want model_name,source_url,target_url[,action]", line)
		}
		if line == 1 && rec[0] == "model_name" {
			continue
		}
		if len(rec) > 3 && strings.EqualFold(strings.TrimSpace(rec[3]), "skip") {
			continue
		}
		out[strings.TrimSpace(rec[1])] = strings.TrimSpace(rec[2])
	}
}

// WriteConflicts writes conflicts as ghe-migrator's CSV.
func WriteConflicts(w io.Writer, list []Conflict) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model_name", "source_url", "target_url", "recommended_action"})
	for _, c := range list {
		cw.Write([]string{c.ModelName, c.SourceURL, c.TargetURL, c.RecommendedAction})
	}
	cw.Flush()
	return cw.Error()
}

// Records of the archive, with the fields import reads.
type (
	arReaction struct {
		User      string    `json:"user"`
		Content   string    `json:"content"`
		CreatedAt time.Time `json:"created_at"`
	}
	arUser struct {
		URL       string     `json:"url"`
		Login     string     `json:"login"`
		Name      string     `json:"name"`
		Company   string     `json:"company"`
		Website   string     `json:"website"`
		Location  string     `json:"location"`
		CreatedAt *time.Time `json:"created_at"`
		Emails    []struct {
			Address string `json:"address"`
			Primary bool   `json:"primary"`
		} `json:"emails"`
	}
	arLabel struct {
		URL         string     `json:"url"`
		Name        string     `json:"name"`
		Color       string     `json:"color"`
		Description *string    `json:"description"`
		CreatedAt   *time.Time `json:"created_at"`
	}
	arRepo struct {
		URL          string    `json:"url"`
		Owner        string    `json:"owner"`
		Name         string    `json:"name"`
		Description  string    `json:"description"`
		Website      string    `json:"website"`
		Private      bool      `json:"private"`
		HasIssues    bool      `json:"has_issues"`
		HasWiki      bool      `json:"has_wiki"`
		HasDownloads bool      `json:"has_downloads"`
		Labels       []arLabel `json:"labels"`
		Hooks        []struct {
			URL         string   `json:"url"`
			ContentType string   `json:"content_type"`
			InsecureSSL string   `json:"insecure_ssl"`
			Events      []string `json:"events"`
		} `json:"hooks"`
		Collaborators []struct {
			User       string `json:"user"`
			Permission string `json:"permission"`
		} `json:"collaborators"`
		GitURL        string    `json:"git_url"`
		DefaultBranch string    `json:"default_branch"`
		CreatedAt     time.Time `json:"created_at"`
	}
	arTeam struct {
		URL          string  `json:"url"`
		Organization string  `json:"organization"`
		Name         string  `json:"name"`
		Description  *string `json:"description"`
		Privacy      string  `json:"privacy"`
		Permissions  []struct {
			Repository string `json:"repository"`
			Access     string `json:"access"`
		} `json:"permissions"`
		Members []struct {
			User string `json:"user"`
			Role string `json:"role"`
		} `json:"members"`
		CreatedAt time.Time `json:"created_at"`
	}
	arMilestone struct {
		URL         string     `json:"url"`
		Repository  string     `json:"repository"`
		User        string     `json:"user"`
		Title       string     `json:"title"`
		Description *string    `json:"description"`
		State       string     `json:"state"`
		DueOn       *time.Time `json:"due_on"`
		CreatedAt   time.Time  `json:"created_at"`
		ClosedAt    *time.Time `json:"closed_at"`
	}
	arRef struct {
		Ref  string `json:"ref"`
		SHA  string `json:"sha"`
		Repo string `json:"repo"`
	}
	arIssue struct {
		Type           string       `json:"type"`
		URL            string       `json:"url"`
		Repository     string       `json:"repository"`
		User           string       `json:"user"`
		Title          string       `json:"title"`
		Body           *string      `json:"body"`
		Assignees      []string     `json:"assignees"`
		Milestone      string       `json:"milestone"`
		Labels         []string     `json:"labels"`
		ClosedAt       *time.Time   `json:"closed_at"`
		CreatedAt      time.Time    `json:"created_at"`
		UpdatedAt      time.Time    `json:"updated_at"`
		Base           *arRef       `json:"base"`
		Head           *arRef       `json:"head"`
		MergedAt       *time.Time   `json:"merged_at"`
		MergedBy       string       `json:"merged_by"`
		MergeCommitSHA *string      `json:"merge_commit_sha"`
		Draft          bool         `json:"draft"`
		Locked         bool         `json:"locked"`
		LockReason     *string      `json:"active_lock_reason"`
		Reactions      []arReaction `json:"reactions"`
	}
	arComment struct {
		URL         string       `json:"url"`
		Issue       string       `json:"issue"`
		PullRequest string       `json:"pull_request"`
		User        string       `json:"user"`
		Body        string       `json:"body"`
		CreatedAt   time.Time    `json:"created_at"`
		Reactions   []arReaction `json:"reactions"`
	}
	arEvent struct {
		URL            string    `json:"url"`
		Comment        string    `json:"comment"`
		Review         string    `json:"pull_request_review"`
		Issue          string    `json:"issue"`
		PullRequest    string    `json:"pull_request"`
		Actor          string    `json:"actor"`
		Event          string    `json:"event"`
		CommitID       *string   `json:"commit_id"`
		LabelName      string    `json:"label_name"`
		LabelColor     string    `json:"label_color"`
		Subject        string    `json:"subject"`
		MilestoneTitle string    `json:"milestone_title"`
		TitleWas       string    `json:"title_was"`
		TitleIs        string    `json:"title_is"`
		CreatedAt      time.Time `json:"created_at"`
	}
	arReview struct {
		URL         string     `json:"url"`
		PullRequest string     `json:"pull_request"`
		User        string     `json:"user"`
		Body        string     `json:"body"`
		HeadSHA     string     `json:"head_sha"`
		State       string     `json:"state"`
		CreatedAt   time.Time  `json:"created_at"`
		SubmittedAt *time.Time `json:"submitted_at"`
	}
	arReviewComment struct {
		URL              string       `json:"url"`
		PullRequest      string       `json:"pull_request"`
		Review           string       `json:"pull_request_review"`
		InReplyTo        string       `json:"in_reply_to"`
		User             string       `json:"user"`
		Body             string       `json:"body"`
		DiffHunk         string       `json:"diff_hunk"`
		Path             string       `json:"path"`
		Position         *int64       `json:"position"`
		OriginalPosition *int64       `json:"original_position"`
		CommitID         string       `json:"commit_id"`
		OriginalCommitID string       `json:"original_commit_id"`
		CreatedAt        time.Time    `json:"created_at"`
		Reactions        []arReaction `json:"reactions"`
	}
	arCommitComment struct {
		Repository string       `json:"repository"`
		User       string       `json:"user"`
		Body       string       `json:"body"`
		Path       *string      `json:"path"`
		Position   *int64       `json:"position"`
		CommitID   string       `json:"commit_id"`
		CreatedAt  time.Time    `json:"created_at"`
		Reactions  []arReaction `json:"reactions"`
	}
	arRelease struct {
		Repository      string       `json:"repository"`
		User            string       `json:"user"`
		Name            *string      `json:"name"`
		TagName         string       `json:"tag_name"`
		Body            *string      `json:"body"`
		State           string       `json:"state"`
		Prerelease      bool         `json:"prerelease"`
		TargetCommitish string       `json:"target_commitish"`
		PublishedAt     *time.Time   `json:"published_at"`
		CreatedAt       time.Time    `json:"created_at"`
		Reactions       []arReaction `json:"reactions"`
		Assets          []arAsset    `json:"release_assets"`
	}
	arAsset struct {
		User          string     `json:"user"`
		Name          string     `json:"name"`
		Label         *string    `json:"label"`
		ContentType   string     `json:"content_type"`
		State         string     `json:"state"`
		DownloadCount int64      `json:"download_count"`
		AssetURL      string     `json:"asset_url"`
		CreatedAt     time.Time  `json:"created_at"`
		UpdatedAt     *time.Time `json:"updated_at"`
	}
	arProtection struct {
		Name              string   `json:"name"`
		RepositoryURL     string   `json:"repository_url"`
		AdminEnforced     bool     `json:"admin_enforced"`
		StatusChecksLevel string   `json:"required_status_checks_enforcement_level"`
		StatusChecks      []string `json:"required_status_checks"`
		Strict            bool     `json:"strict_required_status_checks_policy"`
		ReviewsLevel      string   `json:"pull_request_reviews_enforcement_level"`
		RequiredApprovals int      `json:"required_approving_review_count"`
		DismissStale      bool     `json:"dismiss_stale_reviews_on_push"`
		RequireCodeOwner  bool     `json:"require_code_owner_review"`
		ForcePushesLevel  string   `json:"allow_force_pushes_enforcement_level"`
		DeletionsLevel    string   `json:"allow_deletions_enforcement_level"`
	}
)

// unpacked is an archive read into memory, its git data left on disk.
type unpacked struct {
	dir          string
	users        []arUser
	repos        []arRepo
	milestones   []arMilestone
	issues       []arIssue
	comments     []arComment
	events       []arEvent
	reviews      []arReview
	reviewCmts   []arReviewComment
	releases     []arRelease
	protections  []arProtection
	commitCmts   []arCommitComment
	teams        []arTeam
	organization []struct {
		URL   string `json:"url"`
		Login string `json:"login"`
	}
}

// unpack extracts the archive at path into dir, refusing entries that
// leave it, and reads its JSON files.
func unpack(path, dir string) (*unpacked, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("not a migration archive (.tar.gz): %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("archive entry %q leaves the archive", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return nil, err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return nil, err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
		}
	}
	u := &unpacked{dir: dir}
	var schema struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		return nil, errors.New("not a migration archive: schema.json is missing")
	}
	if err := json.Unmarshal(b, &schema); err != nil || !strings.HasPrefix(schema.Version, "1.") {
		return nil, fmt.Errorf("unsupported migration archive version %q", schema.Version)
	}
	for _, k := range []struct {
		kind string
		into any
	}{
		{"users", &u.users}, {"organizations", &u.organization}, {"repositories", &u.repos}, {"milestones", &u.milestones},
		{"issues", &u.issues}, {"pull_requests", &u.issues}, {"issue_comments", &u.comments}, {"issue_events", &u.events},
		{"pull_request_reviews", &u.reviews}, {"pull_request_review_comments", &u.reviewCmts}, {"releases", &u.releases},
		{"protected_branches", &u.protections}, {"commit_comments", &u.commitCmts}, {"teams", &u.teams},
	} {
		if err := readKind(dir, k.kind, k.into); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// readKind appends the records of every <kind>_NNNNNN.json file to into (a
// pointer to a slice).
func readKind(dir, kind string, into any) error {
	files, err := filepath.Glob(filepath.Join(dir, kind+"_*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := appendJSON(b, into); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
	}
	return nil
}

// appendJSON decodes a page of records and appends them to into.
func appendJSON(b []byte, into any) error {
	v := reflect.ValueOf(into).Elem()
	page := reflect.New(v.Type())
	if err := json.Unmarshal(b, page.Interface()); err != nil {
		return err
	}
	v.Set(reflect.AppendSlice(v, page.Elem()))
	return nil
}

package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

const accountCols = `a.id, a.login, a.type, a.name, a.email, a.company, a.blog, a.location, a.bio,
 a.twitter_username, a.hireable, a.site_admin, a.suspended_at, a.description, a.billing_email,
 a.default_repo_permission, a.members_can_create_repos, a.members_can_create_public_repos,
 a.members_can_create_private_repos, a.members_can_create_internal_repos, a.has_org_projects,
 a.has_repo_projects, a.web_commit_signoff_required, a.created_at, a.updated_at`

type scanner interface{ Scan(...any) error }

func scanAccount(sc scanner, a *model.Account) error {
	var hireable sql.NullBool
	var suspended sql.NullInt64
	var created, updated int64
	err := sc.Scan(&a.ID, &a.Login, &a.Type, &a.Name, &a.Email, &a.Company, &a.Blog, &a.Location, &a.Bio,
		&a.TwitterUsername, &hireable, &a.SiteAdmin, &suspended, &a.Description, &a.BillingEmail,
		&a.DefaultRepoPermission, &a.MembersCanCreateRepos, &a.MembersCanCreatePublicRepos,
		&a.MembersCanCreatePrivRepos, &a.MembersCanCreateIntRepos, &a.HasOrgProjects,
		&a.HasRepoProjects, &a.WebCommitSignoffRequired, &created, &updated)
	if err != nil {
		return err
	}
	if hireable.Valid {
		a.Hireable = &hireable.Bool
	}
	a.SuspendedAt = fromNullUnix(suspended)
	a.CreatedAt, a.UpdatedAt = fromUnix(created), fromUnix(updated)
	return nil
}

// CreateAccount inserts a user or organization; ErrDuplicate when the login
// is taken (logins are unique across users and organizations, ignoring case).
func (q Q) CreateAccount(ctx context.Context, a *model.Account) error {
	now := q.Now()
	a.CreatedAt, a.UpdatedAt = now, now
	if a.DefaultRepoPermission == "" {
		a.DefaultRepoPermission = "read"
	}
	id, err := q.insert(ctx, `INSERT INTO accounts (login, lower_login, type, name, email, company, blog, location, bio,
 twitter_username, hireable, site_admin, description, billing_email, default_repo_permission,
 members_can_create_repos, members_can_create_public_repos, members_can_create_private_repos,
 members_can_create_internal_repos, has_org_projects, has_repo_projects, web_commit_signoff_required,
 created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		a.Login, strings.ToLower(a.Login), string(a.Type), a.Name, a.Email, a.Company, a.Blog, a.Location, a.Bio,
		a.TwitterUsername, nullBool(a.Hireable), a.SiteAdmin, a.Description, a.BillingEmail, a.DefaultRepoPermission,
		a.MembersCanCreateRepos, a.MembersCanCreatePublicRepos, a.MembersCanCreatePrivRepos,
		a.MembersCanCreateIntRepos, a.HasOrgProjects, a.HasRepoProjects, a.WebCommitSignoffRequired,
		unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	a.ID = id
	return err
}

// UpdateAccount writes every mutable column of a (login included).
func (q Q) UpdateAccount(ctx context.Context, a *model.Account) error {
	a.UpdatedAt = q.Now()
	res, err := q.exec(ctx, `UPDATE accounts SET login=?, lower_login=?, name=?, email=?, company=?, blog=?, location=?, bio=?,
 twitter_username=?, hireable=?, site_admin=?, suspended_at=?, description=?, billing_email=?, default_repo_permission=?,
 members_can_create_repos=?, members_can_create_public_repos=?, members_can_create_private_repos=?,
 members_can_create_internal_repos=?, has_org_projects=?, has_repo_projects=?, web_commit_signoff_required=?,
 updated_at=? WHERE id=?`,
		a.Login, strings.ToLower(a.Login), a.Name, a.Email, a.Company, a.Blog, a.Location, a.Bio,
		a.TwitterUsername, nullBool(a.Hireable), a.SiteAdmin, nullUnix(a.SuspendedAt), a.Description, a.BillingEmail,
		a.DefaultRepoPermission, a.MembersCanCreateRepos, a.MembersCanCreatePublicRepos, a.MembersCanCreatePrivRepos,
		a.MembersCanCreateIntRepos, a.HasOrgProjects, a.HasRepoProjects, a.WebCommitSignoffRequired,
		unix(a.UpdatedAt), a.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// DeleteAccount removes an account with its repositories, memberships and
// tokens (foreign keys cascade); its stars and watches leave the counters
// of the repositories they were on.
func (q Q) DeleteAccount(ctx context.Context, id int64) error {
	if err := q.ForgetStarsAndSubscriptions(ctx, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `DELETE FROM accounts WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// AccountByLogin finds a user or organization by login, ignoring case.
func (q Q) AccountByLogin(ctx context.Context, login string) (*model.Account, error) {
	a := &model.Account{}
	err := scanAccount(q.row(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.lower_login = ?`, strings.ToLower(login)), a)
	return a, notFound(err)
}

// AccountByID finds an account by id.
func (q Q) AccountByID(ctx context.Context, id int64) (*model.Account, error) {
	a := &model.Account{}
	err := scanAccount(q.row(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.id = ?`, id), a)
	return a, notFound(err)
}

// AccountsSince lists accounts of one type with id > since, in id order
// (GET /users and GET /organizations paginate this way).
func (q Q) AccountsSince(ctx context.Context, typ model.AccountType, since int64, limit int) ([]*model.Account, error) {
	return q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.type = ? AND a.id > ? ORDER BY a.id LIMIT ?`, string(typ), since, limit)
}

// CountAccounts counts accounts of one type.
func (q Q) CountAccounts(ctx context.Context, typ model.AccountType) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM accounts WHERE type = ?`, string(typ)).Scan(&n)
	return n, err
}

func (q Q) accounts(ctx context.Context, query string, args ...any) ([]*model.Account, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.Account
	for rows.Next() {
		a := &model.Account{}
		if err := scanAccount(rows, a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// AccountCounts are the repository counters a user or org object carries.
type AccountCounts struct {
	PublicRepos       int
	TotalPrivateRepos int
	OwnedPrivateRepos int
	Collaborators     int
}

// CountsFor counts the repositories an account owns.
func (q Q) CountsFor(ctx context.Context, id int64) (AccountCounts, error) {
	var c AccountCounts
	err := q.row(ctx, `SELECT
 COALESCE(SUM(CASE WHEN visibility = 'public' THEN 1 ELSE 0 END), 0),
 COALESCE(SUM(CASE WHEN visibility <> 'public' THEN 1 ELSE 0 END), 0)
 FROM repos WHERE owner_id = ?`, id).Scan(&c.PublicRepos, &c.OwnedPrivateRepos)
	if err != nil {
		return c, err
	}
	c.TotalPrivateRepos = c.OwnedPrivateRepos
	err = q.row(ctx, `SELECT COUNT(DISTINCT c.user_id) FROM repo_collaborators c JOIN repos r ON r.id = c.repo_id WHERE r.owner_id = ?`, id).Scan(&c.Collaborators)
	return c, err
}

func nullBool(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// EmailTaken reports whether an account other than exceptID uses email,
// ignoring case (GHES refuses a second account with the same address).
func (q Q) EmailTaken(ctx context.Context, email string, exceptID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM accounts WHERE LOWER(email) = ? AND id <> ?`, strings.ToLower(email), exceptID).Scan(&n)
	return n > 0, err
}

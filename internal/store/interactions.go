package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Interaction limits, pull request creation caps and cap bypass lists
// (owned by internal/interactions). Limit rows stay after they expire:
// every reader passes the clock and sees only limits still in force.

const limitCols = `l.origin, COALESCE(l.repo_id, 0), COALESCE(l.account_id, 0), l.limit_kind, l.expiry,
 l.expires_at, COALESCE(l.creator_id, 0), l.created_at`

func scanLimit(sc scanner) (*model.InteractionLimit, error) {
	l := &model.InteractionLimit{}
	var expires, created int64
	if err := sc.Scan(&l.Origin, &l.RepoID, &l.AccountID, &l.Limit, &l.Expiry, &expires, &l.CreatorID, &created); err != nil {
		return nil, notFound(err)
	}
	l.ExpiresAt, l.CreatedAt = fromUnix(expires), fromUnix(created)
	return l, nil
}

// RepoInteractionLimit is the limit set on the repository itself and still
// in force at now; ErrNotFound when there is none.
func (q Q) RepoInteractionLimit(ctx context.Context, repoID int64, now time.Time) (*model.InteractionLimit, error) {
	return scanLimit(q.row(ctx, `SELECT `+limitCols+` FROM interaction_limits l WHERE l.repo_id = ? AND l.expires_at > ?`, repoID, unix(now)))
}

// AccountInteractionLimit is the limit a user or organization set on all
// its repositories, still in force at now; ErrNotFound when there is none.
func (q Q) AccountInteractionLimit(ctx context.Context, accountID int64, now time.Time) (*model.InteractionLimit, error) {
	return scanLimit(q.row(ctx, `SELECT `+limitCols+` FROM interaction_limits l WHERE l.account_id = ? AND l.expires_at > ?`, accountID, unix(now)))
}

// EffectiveInteractionLimit is the limit that governs a repository at now:
// its owner's when one is in force (it overrides the repository's), else
// the repository's own; ErrNotFound when neither is. One round trip.
func (q Q) EffectiveInteractionLimit(ctx context.Context, repoID, ownerID int64, now time.Time) (*model.InteractionLimit, error) {
	return scanLimit(q.row(ctx, `SELECT `+limitCols+` FROM interaction_limits l
 WHERE (l.account_id = ? OR l.repo_id = ?) AND l.expires_at > ?
 ORDER BY CASE WHEN l.account_id IS NULL THEN 1 ELSE 0 END LIMIT 1`, ownerID, repoID, unix(now)))
}

// SetInteractionLimit replaces the limit of l's repository or account,
// setting its creation time.
func (q Q) SetInteractionLimit(ctx context.Context, l *model.InteractionLimit) error {
	now := q.Now()
	if err := q.deleteLimit(ctx, l.RepoID, l.AccountID); err != nil {
		return err
	}
	l.CreatedAt = fromUnix(unix(now))
	_, err := q.exec(ctx, `INSERT INTO interaction_limits (origin, repo_id, account_id, limit_kind, expiry, expires_at, creator_id, created_at)
 VALUES (?,?,?,?,?,?,?,?)`, l.Origin, nullID(l.RepoID), nullID(l.AccountID), l.Limit, l.Expiry, unix(l.ExpiresAt), idOrNil(l.CreatorID), unix(now))
	return err
}

func (q Q) deleteLimit(ctx context.Context, repoID, accountID int64) error {
	var err error
	if repoID != 0 {
		_, err = q.exec(ctx, `DELETE FROM interaction_limits WHERE repo_id = ?`, repoID)
	} else {
		_, err = q.exec(ctx, `DELETE FROM interaction_limits WHERE account_id = ?`, accountID)
	}
	return err
}

// DeleteRepoInteractionLimit removes a repository's limit (expired or not)
// and reports whether one was in force at now.
func (q Q) DeleteRepoInteractionLimit(ctx context.Context, repoID int64, now time.Time) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM interaction_limits WHERE repo_id = ? AND expires_at > ?`, repoID, unix(now))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	_, err = q.exec(ctx, `DELETE FROM interaction_limits WHERE repo_id = ?`, repoID)
	return n > 0, err
}

// DeleteAccountInteractionLimit removes an account's limit and reports
// whether one was in force at now.
func (q Q) DeleteAccountInteractionLimit(ctx context.Context, accountID int64, now time.Time) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM interaction_limits WHERE account_id = ? AND expires_at > ?`, accountID, unix(now))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	_, err = q.exec(ctx, `DELETE FROM interaction_limits WHERE account_id = ?`, accountID)
	return n > 0, err
}

// DeleteOwnedReposInteractionLimits removes the limits of every repository
// an account owns (an account-wide limit overwrites them) and gives how
// many there were.
func (q Q) DeleteOwnedReposInteractionLimits(ctx context.Context, ownerID int64) (int64, error) {
	res, err := q.exec(ctx, `DELETE FROM interaction_limits WHERE repo_id IN (SELECT id FROM repos WHERE owner_id = ?)`, ownerID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// PullCreationCap is the cap configured on a repository (repoID) or an
// organization (accountID); Set is false, with the defaults, when none was.
func (q Q) PullCreationCap(ctx context.Context, repoID, accountID int64, defaultMax int) (*model.PullCreationCap, error) {
	c := &model.PullCreationCap{RepoID: repoID, AccountID: accountID, MaxOpen: defaultMax}
	var updated int64
	var row rowScanner
	if repoID != 0 {
		row = q.row(ctx, `SELECT enabled, max_open, updated_at FROM pull_creation_caps WHERE repo_id = ?`, repoID)
	} else {
		row = q.row(ctx, `SELECT enabled, max_open, updated_at FROM pull_creation_caps WHERE account_id = ?`, accountID)
	}
	err := row.Scan(&c.Enabled, &c.MaxOpen, &updated)
	if err == sql.ErrNoRows {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	c.Set, c.UpdatedAt = true, fromUnix(updated)
	return c, nil
}

// SetPullCreationCap writes c for its repository or organization.
func (q Q) SetPullCreationCap(ctx context.Context, c *model.PullCreationCap) error {
	now := q.Now()
	var err error
	if c.RepoID != 0 {
		_, err = q.exec(ctx, `DELETE FROM pull_creation_caps WHERE repo_id = ?`, c.RepoID)
	} else {
		_, err = q.exec(ctx, `DELETE FROM pull_creation_caps WHERE account_id = ?`, c.AccountID)
	}
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO pull_creation_caps (repo_id, account_id, enabled, max_open, updated_at) VALUES (?,?,?,?,?)`,
		nullID(c.RepoID), nullID(c.AccountID), c.Enabled, c.MaxOpen, unix(now))
	c.Set, c.UpdatedAt = true, fromUnix(unix(now))
	return err
}

// PullCapBypassList is a repository's bypass list in login order.
func (q Q) PullCapBypassList(ctx context.Context, repoID int64) ([]*model.Account, error) {
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM pull_cap_bypass b JOIN accounts a ON a.id = b.user_id
 WHERE b.repo_id = ? ORDER BY a.lower_login`, repoID)
	if list == nil {
		list = []*model.Account{}
	}
	return list, err
}

// CountPullCapBypass counts a repository's bypass list.
func (q Q) CountPullCapBypass(ctx context.Context, repoID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM pull_cap_bypass WHERE repo_id = ?`, repoID).Scan(&n)
	return n, err
}

// AddPullCapBypass puts users on a repository's bypass list (already
// listed ones stay) and gives how many were new.
func (q Q) AddPullCapBypass(ctx context.Context, repoID int64, userIDs []int64) (int, error) {
	added := 0
	for _, id := range userIDs {
		res, err := q.exec(ctx, `INSERT INTO pull_cap_bypass (repo_id, user_id, created_at) VALUES (?,?,?)
 ON CONFLICT (repo_id, user_id) DO NOTHING`, repoID, id, unix(q.Now()))
		if err != nil {
			return added, err
		}
		n, _ := res.RowsAffected()
		added += int(n)
	}
	return added, nil
}

// RemovePullCapBypass takes users off a repository's bypass list and gives
// how many were on it.
func (q Q) RemovePullCapBypass(ctx context.Context, repoID int64, userIDs []int64) (int, error) {
	removed := 0
	for _, id := range userIDs {
		res, err := q.exec(ctx, `DELETE FROM pull_cap_bypass WHERE repo_id = ? AND user_id = ?`, repoID, id)
		if err != nil {
			return removed, err
		}
		n, _ := res.RowsAffected()
		removed += int(n)
	}
	return removed, nil
}

// OnPullCapBypass reports whether a user is on a repository's bypass list.
func (q Q) OnPullCapBypass(ctx context.Context, repoID, userID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM pull_cap_bypass WHERE repo_id = ? AND user_id = ?`, repoID, userID).Scan(&n)
	return n > 0, err
}

// HasMergedPullInto reports whether a user authored a pull request of the
// repository that was merged into branch: hubd's cheap answer to "has
// contributed to the default branch".
func (q Q) HasMergedPullInto(ctx context.Context, repoID, userID int64, branch string) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM issues i JOIN pulls p ON p.issue_id = i.id
 WHERE i.user_id = ? AND i.repo_id = ? AND p.merged_at IS NOT NULL AND p.base_ref = ?`, userID, repoID, branch).Scan(&n)
	return n > 0, err
}

// CountOpenPullsBy counts a user's open, non-draft pull requests in a
// repository.
func (q Q) CountOpenPullsBy(ctx context.Context, repoID, userID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM issues i JOIN pulls p ON p.issue_id = i.id
 WHERE i.user_id = ? AND i.repo_id = ? AND p.state = 'open' AND p.draft = ?`, userID, repoID, false).Scan(&n)
	return n, err
}

// CountOpenPullsInOwner counts a user's open, non-draft pull requests across
// the public repositories of an owner.
func (q Q) CountOpenPullsInOwner(ctx context.Context, ownerID, userID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM issues i JOIN pulls p ON p.issue_id = i.id JOIN repos r ON r.id = i.repo_id
 WHERE i.user_id = ? AND r.owner_id = ? AND r.visibility = 'public' AND p.state = 'open' AND p.draft = ?`, userID, ownerID, false).Scan(&n)
	return n, err
}

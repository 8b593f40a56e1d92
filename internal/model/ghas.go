package model

import "time"

// RepoSecurity is a repository's security and analysis settings
// (security_and_analysis in its REST object): GitHub Advanced Security,
// secret scanning and its push protection. The zero value is all off.
type RepoSecurity struct {
	AdvancedSecurity bool
	SecretScanning   bool
	PushProtection   bool
}

// ActiveCommitter is a user whose commits were pushed to a repository:
// the last push's time and the commit address that matched the user.
type ActiveCommitter struct {
	Login    string
	Email    string
	PushedAt time.Time
}

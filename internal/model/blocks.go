package model

import "time"

// Block is one account (a user or an organization) blocking a user.
type Block struct {
	BlockerID int64
	BlockedID int64
	Blocked   *Account // loaded with lists
	CreatedAt time.Time
}

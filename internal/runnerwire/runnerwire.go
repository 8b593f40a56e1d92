// Package runnerwire holds what both ends of the runner protocol agree on
// (docs/runner-protocol.md): its paths, credential headers and the bodies
// of its answers. hubd's transport (internal/api/runnerproto) and the
// runner (internal/runner) both import it, so neither imports the other.
package runnerwire

// Headers carrying the runner's and the job's credentials.
const (
	RunnerHeader = "X-Hubd-Runner"
	JobHeader    = "X-Hubd-Job"
)

// Paths of the protocol.
const (
	Prefix       = "/_runner"
	RegisterPath = Prefix + "/register"
	PollPath     = Prefix + "/poll"
	GoodbyePath  = Prefix + "/goodbye"
	JobsPath     = Prefix + "/jobs/"
)

// MaxLogPost caps the body of one log post.
const MaxLogPost = 1 << 20

// RegisterResponse answers a registration.
type RegisterResponse struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Credential string `json:"credential"`
}

// HeartbeatResponse tells a runner whether its job goes on: Stop is the
// conclusion it is to stop with (cancelled, timed_out), or "".
type HeartbeatResponse struct {
	Stop string `json:"stop"`
}

// Package runner is a runner of hubd's runner protocol
// (docs/runner-protocol.md): `hubd runner` and the local runners of hubd
// serve. It holds nothing but its own credential: it registers (or
// connects with a JIT configuration), long-polls hubd for a job, fetches
// the job's files over the protocol, starts the job's worker (`hubd
// actions-worker`, its spec on standard input) through isolate, streams
// the masked log back, heartbeats, reports the result, and removes the
// job's directory however the job ends. It has no database connection
// and no path into hubd's data directory.
package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/runnerwire"
)

// Client talks the runner protocol to hubd at URL.
type Client struct {
	URL        string // hubd's web URL, e.g. https://hubd.example
	Credential string // the runner's credential
	HTTP       *http.Client
}

// ErrRejected is hubd refusing a credential (401): a removed runner.
type ErrRejected struct{ Status int }

func (e ErrRejected) Error() string {
	return fmt.Sprintf("runner protocol: hubd answered %d", e.Status)
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// do sends a request; the response's body is the caller's to close when
// the status is 2xx.
func (c *Client) do(ctx context.Context, method, path, header, cred string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, body)
	if err != nil {
		return nil, err
	}
	if header != "" {
		req.Header.Set(header, cred)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusNotFound {
			return nil, ErrRejected{resp.StatusCode}
		}
		return nil, fmt.Errorf("runner protocol: %s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	return resp, nil
}

// Register registers a runner with a registration token; the client keeps
// its credential.
func (c *Client) Register(ctx context.Context, token, name string, labels []string, ephemeral bool) (*runnerwire.RegisterResponse, error) {
	b, _ := json.Marshal(map[string]any{"token": token, "name": name, "labels": labels, "ephemeral": ephemeral})
	resp, err := c.do(ctx, "POST", runnerwire.RegisterPath, "", "", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out runnerwire.RegisterResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	c.Credential = out.Credential
	return &out, nil
}

// ParseJIT reads a JIT configuration (generate-jitconfig's
// encoded_jit_config): hubd's URL, the runner's name and credential.
func ParseJIT(config string) (url, name, cred string, err error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(config))
	if err != nil {
		return "", "", "", fmt.Errorf("jitconfig: %v", err)
	}
	var files map[string]string
	if err := json.Unmarshal(raw, &files); err != nil {
		return "", "", "", fmt.Errorf("jitconfig: %v", err)
	}
	var runner struct {
		Name      string `json:"agentName"`
		ServerURL string `json:"serverUrl"`
	}
	var creds struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	for name, v := range map[string]any{".runner": &runner, ".credentials": &creds} {
		b, err := base64.StdEncoding.DecodeString(files[name])
		if err == nil {
			err = json.Unmarshal(b, v)
		}
		if err != nil {
			return "", "", "", fmt.Errorf("jitconfig: %s: %v", name, err)
		}
	}
	if runner.ServerURL == "" || creds.Data.Token == "" {
		return "", "", "", fmt.Errorf("jitconfig: no server URL or credential")
	}
	return runner.ServerURL, runner.Name, creds.Data.Token, nil
}

// Poll waits for a job (nil: none came within hubd's poll time).
func (c *Client) Poll(ctx context.Context) (*actions.Assignment, error) {
	resp, err := c.do(ctx, "POST", runnerwire.PollPath, runnerwire.RunnerHeader, c.Credential, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent {
		return nil, nil
	}
	var a actions.Assignment
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return nil, err
	}
	return &a, nil
}

// Goodbye tells hubd the runner stops (offline at once).
func (c *Client) Goodbye(ctx context.Context) error {
	resp, err := c.do(ctx, "POST", runnerwire.GoodbyePath, runnerwire.RunnerHeader, c.Credential, nil)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

// jobClient is a job's endpoints, with the job's credential.
type jobClient struct {
	c    *Client
	id   int64
	cred string
}

func (j jobClient) do(ctx context.Context, method, what string, body io.Reader) (*http.Response, error) {
	return j.c.do(ctx, method, runnerwire.JobsPath+strconv.FormatInt(j.id, 10)+"/"+what, runnerwire.JobHeader, j.cred, body)
}

func (j jobClient) post(ctx context.Context, what string, body io.Reader, out any) error {
	resp, err := j.do(ctx, "POST", what, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// files fetches one of the job's trees (a tar stream; the caller closes).
func (j jobClient) files(ctx context.Context, part string) (io.ReadCloser, error) {
	resp, err := j.do(ctx, "GET", "files/"+part, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func (j jobClient) log(ctx context.Context, text []byte) error {
	return j.post(ctx, "log", bytes.NewReader(text), nil)
}

func (j jobClient) heartbeat(ctx context.Context) (string, error) {
	var hb runnerwire.HeartbeatResponse
	err := j.post(ctx, "heartbeat", nil, &hb)
	return hb.Stop, err
}

func (j jobClient) result(ctx context.Context, res actions.Result) error {
	b, _ := json.Marshal(res)
	return j.post(ctx, "result", bytes.NewReader(b), nil)
}

func (j jobClient) upload(ctx context.Context, part string, body io.Reader) error {
	return j.post(ctx, "files/"+part, body, nil)
}

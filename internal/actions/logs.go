package actions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// A running job's log streams to a file under the executor's root
// (logs/<job id>.log) as the worker writes it, every line timestamped as
// GitHub's are; when the job ends the log is stored with the job and the
// file removed. The log operations read the file while the job runs.

// stampLayout is the time of a log line as GitHub writes it.
const stampLayout = "2006-01-02T15:04:05.0000000Z"

// maxLine is the longest line kept whole; a longer one is cut into lines.
const maxLine = 64 << 10

func (e *Executor) liveLogPath(jobID int64) string {
	return filepath.Join(e.Root, "logs", fmt.Sprintf("%d.log", jobID))
}

// liveLog makes the log of a job that is about to run: kept in memory up
// to MaxLog and written through to its live file.
func (e *Executor) liveLog(jobID int64) *cappedBuffer {
	c := &cappedBuffer{max: MaxLog}
	if e.Root == "" {
		return c
	}
	p := e.liveLogPath(jobID)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return c
	}
	if f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600); err == nil {
		c.file = f
	}
	return c
}

// dropLiveLog removes a finished job's live log (its log is stored).
func (e *Executor) dropLiveLog(jobID int64) {
	if e.Root != "" {
		_ = os.Remove(e.liveLogPath(jobID))
	}
}

// JobLog is a job's log: the stored log of a job that ended, what a
// running job has written so far (empty before its first line), not found
// for a job that has not run or whose log was deleted.
func (s *Service) JobLog(ctx context.Context, j *model.WorkflowJob) (string, error) {
	text, err := s.Store.R().JobLog(ctx, j.ID)
	if !errors.Is(err, model.ErrNotFound) || s.Exec.Root == "" {
		return text, err
	}
	// Not stored yet: the job runs, or its worker is storing its log.
	if f, ferr := os.Open(s.Exec.liveLogPath(j.ID)); ferr == nil {
		b, ferr := io.ReadAll(io.LimitReader(f, MaxLog+maxLine))
		f.Close()
		if ferr == nil {
			return string(b), nil
		}
	}
	if j.Status == model.ActionsInProgress {
		return "", nil // its worker runs elsewhere or has not written yet
	}
	return "", err
}

// stamped reports whether a log line starts with GitHub's timestamp.
func stamped(line []byte) bool {
	return len(line) > len(stampLayout) && line[4] == '-' && line[10] == 'T' && line[len(stampLayout)-1] == 'Z' && line[len(stampLayout)] == ' '
}

// cappedBuffer is a job's log: it keeps the first max bytes written to it
// (and writes them through to file), each line timestamped.
type cappedBuffer struct {
	buf     bytes.Buffer
	max     int
	lost    int64
	file    *os.File
	partial []byte
	masks   []string // secretMasks of the job's secrets, masked in every line
}

// Write takes the worker's output (one writer: exec gives stdout and
// stderr one pipe), stamping the lines that have no time.
func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 && len(c.partial) < maxLine {
			break
		}
		n := i + 1
		if i < 0 || n > maxLine {
			n = maxLine
		}
		c.add(c.partial[:n], n == i+1)
		c.partial = c.partial[n:]
	}
	if len(c.partial) == 0 {
		c.partial = nil
	}
	return len(p), nil
}

func (c *cappedBuffer) add(line []byte, ended bool) {
	if len(c.masks) > 0 {
		line = []byte(Mask(string(line), c.masks))
	}
	var out []byte
	if !stamped(line) {
		out = append([]byte(time.Now().UTC().Format(stampLayout)+" "), line...)
	} else {
		out = line
	}
	if !ended {
		out = append(out, '\n')
	}
	room := c.max - c.buf.Len()
	if room <= 0 {
		c.lost += int64(len(out))
		return
	}
	keep := out[:min(len(out), room)]
	c.buf.Write(keep)
	c.lost += int64(len(out) - len(keep))
	if c.file != nil {
		_, _ = c.file.Write(keep)
	}
}

// String ends the log: the last unended line, and a note when it was cut.
func (c *cappedBuffer) String() string {
	if len(c.partial) > 0 {
		c.add(c.partial, false)
		c.partial = nil
	}
	s := c.buf.String()
	if c.lost > 0 {
		note := time.Now().UTC().Format(stampLayout) + " " + fmt.Sprintf("##[warning]The log was cut: %d more bytes were not kept.\n", c.lost)
		s += note
		if c.file != nil {
			_, _ = c.file.WriteString(note)
		}
	}
	return s
}

func (c *cappedBuffer) close() {
	if c.file != nil {
		c.file.Close()
	}
}

package server

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// Timeouts bound how long a connection may take. Without them a client that
// trickles a request body, or never reads the response, holds a connection
// and a goroutine forever.
type Timeouts struct {
	ReadHeader time.Duration // request line and headers
	Read       time.Duration // the whole request, body included
	Write      time.Duration // the whole response
	Idle       time.Duration // a keep-alive connection between requests
}

// DefaultTimeouts suit API calls: a 25 MB body at 200 KB/s fits in Read.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: 30 * time.Second, Read: 2 * time.Minute, Write: 2 * time.Minute, Idle: 2 * time.Minute}
}

// HTTPServer is the http.Server that serves s with these timeouts. Streaming
// responses (git's smart HTTP, archives) can last far longer than any fixed
// Write timeout, so for them the timeouts bound the pause between two reads
// or two writes instead (see stream).
func (s *Server) HTTPServer(t Timeouts) *http.Server {
	s.timeouts = t
	return &http.Server{Handler: s, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write, IdleTimeout: t.Idle}
}

// stream turns the connection's fixed deadlines into progress deadlines for
// one long request: every write (and every read of the body) pushes its
// deadline Write (Read) ahead, so a clone of a large repository or a large
// push runs as long as data moves, and a client that stops moving is still
// cut off. Once the body is read the read deadline is lifted: the server
// keeps a read pending to notice a closed connection, and its deadline
// expiring would cancel the request in the middle of the response.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	t := s.timeouts
	if t.Read <= 0 && t.Write <= 0 {
		return w, r
	}
	rc := http.NewResponseController(w)
	if t.Write > 0 {
		sw := &streamWriter{ResponseWriter: w, rc: rc, d: t.Write}
		sw.extend(time.Now())
		w = sw
	}
	if t.Read > 0 {
		if r.Body == nil || r.Body == http.NoBody {
			rc.SetReadDeadline(time.Time{})
		} else {
			sr := &streamReader{ReadCloser: r.Body, rc: rc, d: t.Read}
			sr.extend(time.Now())
			r.Body = sr
		}
	}
	return w, r
}

// streamWriter extends the write deadline as the response is written. The
// deadline moves at most every d/8 (SetWriteDeadline is cheap, but not
// free), so at least 7/8 of d remains for each write.
type streamWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	d    time.Duration
	next time.Time
}

func (sw *streamWriter) extend(now time.Time) {
	sw.rc.SetWriteDeadline(now.Add(sw.d))
	sw.next = now.Add(sw.d / 8)
}

func (sw *streamWriter) Write(p []byte) (int, error) {
	if now := time.Now(); now.After(sw.next) {
		sw.extend(now)
	}
	return sw.ResponseWriter.Write(p)
}

// Flush and Unwrap keep http.Flusher and http.ResponseController working
// through the wrapper.
func (sw *streamWriter) Flush() {
	if now := time.Now(); now.After(sw.next) {
		sw.extend(now)
	}
	sw.rc.Flush()
}
func (sw *streamWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// streamReader extends the read deadline as the body is read and lifts it
// at the body's end.
type streamReader struct {
	io.ReadCloser
	rc   *http.ResponseController
	d    time.Duration
	next time.Time
	done bool
}

func (sr *streamReader) extend(now time.Time) {
	sr.rc.SetReadDeadline(now.Add(sr.d))
	sr.next = now.Add(sr.d / 8)
}

func (sr *streamReader) Read(p []byte) (int, error) {
	if now := time.Now(); !sr.done && now.After(sr.next) {
		sr.extend(now)
	}
	n, err := sr.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !sr.done {
		sr.done = true
		sr.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

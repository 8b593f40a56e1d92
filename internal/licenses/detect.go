package licenses

import (
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	classifier "github.com/google/licenseclassifier/v2"
	"github.com/google/licenseclassifier/v2/assets"
)

// The classifier knows a few hundred licenses and takes about half a second
// to build, so it is built once, on the first detection, and shared: its
// Match only reads the corpus.
var (
	clOnce sync.Once
	cl     *classifier.Classifier
	clErr  error
	// ClassifierInit is how long building the classifier took.
	ClassifierInit time.Duration
)

func getClassifier() (*classifier.Classifier, error) {
	clOnce.Do(func() {
		start := time.Now()
		cl, clErr = assets.DefaultClassifier()
		ClassifierInit = time.Since(start)
		slog.Info("license classifier ready", "took", ClassifierInit.Round(time.Millisecond))
	})
	return cl, clErr
}

// minConfidence is how close a text must be to a known license, and
// minCoverage how much of the file (in words) that license must make up,
// for the file to be that license; otherwise it is "other", as GitHub
// answers for texts it cannot name (modified licenses, several licenses in
// one file).
const (
	minConfidence = 0.9
	minCoverage   = 0.5
)

// classifierNames maps the classifier's names that differ from the SPDX
// ids of the catalogue.
var classifierNames = map[string]string{"BSD-0-Clause": "0BSD"}

// Detect names the license of a license file's text: nil when it matches
// none of the catalogue ("other").
func Detect(text []byte) (*License, error) {
	c, err := getClassifier()
	if err != nil {
		return nil, err
	}
	res := c.Match(text)
	var best *classifier.Match
	names := map[string]bool{}
	for _, m := range res.Matches {
		if m.MatchType != "License" || m.Confidence < minConfidence {
			continue
		}
		names[m.Name] = true
		if best == nil || m.EndTokenIndex-m.StartTokenIndex > best.EndTokenIndex-best.StartTokenIndex {
			best = m
		}
	}
	if best == nil || len(names) != 1 {
		return nil, nil
	}
	if words := len(strings.Fields(string(text))); float64(best.EndTokenIndex-best.StartTokenIndex+1)/float64(words) < minCoverage {
		return nil, nil
	}
	spdx := best.Name
	if v, ok := classifierNames[spdx]; ok {
		spdx = v
	}
	for _, l := range catalogue {
		if strings.EqualFold(l.SPDX, spdx) {
			return l, nil
		}
	}
	return nil, nil
}

// detections remembers results by blob id: a blob's text never changes.
var detections = struct {
	sync.Mutex
	m map[string]*License
}{m: map[string]*License{}}

const maxDetections = 4096

// detectBlob is Detect, remembered by blob id.
func detectBlob(oid string, text []byte) (*License, error) {
	detections.Lock()
	l, ok := detections.m[oid]
	detections.Unlock()
	if ok {
		return l, nil
	}
	l, err := Detect(text)
	if err != nil {
		return nil, err
	}
	detections.Lock()
	if len(detections.m) >= maxDetections {
		clear(detections.m)
	}
	detections.m[oid] = l
	detections.Unlock()
	return l, nil
}

// fileScore ranks the names of a repository's root files as license files,
// as GitHub looks for them: LICENSE (or LICENCE, UNLICENSE) first, then
// with a text extension, then COPYING, then names like LICENSE-MIT; 0 for
// other files.
func fileScore(name string) int {
	n := strings.ToLower(name)
	ext := path.Ext(n)
	base := strings.TrimSuffix(n, ext)
	textExt := false
	switch ext {
	case ".md", ".markdown", ".txt", ".rst", ".html", ".mdown", ".text":
		textExt = true
	}
	isLicense := func(s string) bool { return s == "license" || s == "licence" || s == "unlicense" }
	switch {
	case isLicense(n):
		return 100
	case isLicense(base) && textExt:
		return 90
	case n == "copying":
		return 80
	case base == "copying" && textExt:
		return 70
	case strings.HasPrefix(n, "license-") || strings.HasPrefix(n, "licence-") ||
		strings.HasSuffix(base, "-license") || strings.HasSuffix(base, "-licence"):
		return 50
	}
	return 0
}

package licenses

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDetectCatalogue: the text of every license of the catalogue, filled
// in as repository creation fills it, is detected as itself.
func TestDetectCatalogue(t *testing.T) {
	start := time.Now()
	if _, err := getClassifier(); err != nil {
		t.Fatal(err)
	}
	t.Logf("classifier built in %v (first call %v)", ClassifierInit, time.Since(start))
	for _, l := range catalogue {
		text := l.Fill("2026", "Mona Lisa Octocat")
		start := time.Now()
		got, err := Detect([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if got != l {
			name := "other"
			if got != nil {
				name = got.Key
			}
			t.Errorf("%s detected as %s", l.Key, name)
		}
		t.Logf("%-12s %6d bytes detected in %v", l.Key, len(text), time.Since(start).Round(time.Microsecond))
	}
}

func TestDetectOther(t *testing.T) {
	mit, _ := Find("mit")
	gpl, _ := Find("gpl-3.0")
	for name, text := range map[string]string{
		"proprietary":           "Copyright 2026 Example Corp. All rights reserved.\n\nNo part of this software may be copied, modified or distributed without written permission.\n",
		"empty":                 "",
		"two licenses":          mit.Fill("2026", "A") + "\n\n---\n\n" + gpl.Body,
		"mostly something else": mit.Fill("2026", "A") + strings.Repeat("Additional terms: the software must not be used on Tuesdays, and every user owes the authors a postcard.\n", 40),
	} {
		got, err := Detect([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if got != nil {
			t.Errorf("%s detected as %s", name, got.Key)
		}
	}
	// Reflowed and with Windows line endings, MIT is still MIT.
	text := strings.ReplaceAll(strings.Join(strings.Fields(mit.Fill("2020", "Someone")), " "), ". ", ".\r\n")
	if got, err := Detect([]byte(text)); err != nil || got != mit {
		t.Errorf("reflowed MIT: %v %v", got, err)
	}
}

func TestFileScore(t *testing.T) {
	order := []string{"LICENSE", "LICENSE.md", "COPYING", "COPYING.txt", "LICENSE-MIT"}
	for i := 1; i < len(order); i++ {
		if fileScore(order[i-1]) <= fileScore(order[i]) {
			t.Errorf("%s should rank above %s", order[i-1], order[i])
		}
	}
	for _, n := range []string{"licence", "Unlicense", "license.txt", "MIT-LICENSE", "copying.md"} {
		if fileScore(n) == 0 {
			t.Errorf("%s is a license file", n)
		}
	}
	for _, n := range []string{"README.md", "license.go", "licenses", "LICENSE.png", "NOTICE"} {
		if fileScore(n) != 0 {
			t.Errorf("%s is not a license file", n)
		}
	}
}

func TestCatalogue(t *testing.T) {
	n := 0
	for _, l := range catalogue {
		if l.Common {
			n++
		}
		if !strings.Contains(l.Body, "[year]") && !strings.Contains(l.Body, "[fullname]") {
			// The GNU, Mozilla, Eclipse and public-domain texts carry no
			// copyright line of their own.
			switch l.Key {
			case "agpl-3.0", "apache-2.0", "gpl-2.0", "gpl-3.0", "lgpl-2.1", "lgpl-3.0", "mpl-2.0", "epl-2.0", "cc0-1.0", "unlicense", "bsl-1.0":
			default:
				t.Errorf("%s has no placeholders", l.Key)
			}
		}
		if strings.Contains(l.Body, "\r") {
			t.Errorf("%s has carriage returns", l.Key)
		}
	}
	if n != 13 {
		t.Fatalf("%d commonly used licenses, GitHub lists 13", n)
	}
	if len(GitignoreNames()) < 40 {
		t.Fatalf("%d gitignore templates", len(GitignoreNames()))
	}
	for _, name := range GitignoreNames() {
		src, _ := Gitignore(name)
		if strings.TrimSpace(src) == "" || !strings.HasSuffix(src, "\n") {
			t.Errorf("template %s is empty or lacks a final newline", name)
		}
	}
}

// TestDetectConcurrent: the shared classifier serves parallel requests
// (run with -race).
func TestDetectConcurrent(t *testing.T) {
	done := make(chan error)
	for _, key := range []string{"mit", "apache-2.0", "bsd-3-clause", "isc"} {
		go func() {
			l, _ := Find(key)
			got, err := Detect([]byte(l.Fill("2026", "X")))
			if err == nil && got != l {
				err = errors.New(key + " misdetected")
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

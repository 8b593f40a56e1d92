package actions

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// A job's snapshot: keyword (GitHub's custom images: the job's runner is
// captured as a version of the image it names) is not in nektos/act's
// workflow schema, which refuses unknown job keys. The job parse sees the
// workflow without it; internal/runners/images.go reads it from the
// run's source when the job finishes.
func withoutSnapshot(src []byte) []byte {
	if !bytes.Contains(src, []byte("snapshot")) {
		return src
	}
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return src // act reports what is wrong
	}
	changed := false
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "jobs" || root.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		jobs := root.Content[i+1]
		for k := 1; k < len(jobs.Content); k += 2 {
			job := jobs.Content[k]
			if job.Kind != yaml.MappingNode {
				continue
			}
			for f := 0; f+1 < len(job.Content); f += 2 {
				if job.Content[f].Value == "snapshot" {
					job.Content = append(job.Content[:f:f], job.Content[f+2:]...)
					changed = true
					break
				}
			}
		}
	}
	if !changed {
		return src
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return src
	}
	return out
}

package runners

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Hosted runners: GitHub's larger runners are machines GitHub provisions;
// hubd has only its own host. A hosted runner here is a named pool of
// hubd's workers in one of the organization's runner groups: a job whose
// runs-on names it runs on any free worker, as long as the group admits
// the repository and fewer than maximum_runners of its jobs run. The
// images, machine sizes and platforms listed are what this machine
// provides: one GitHub-owned image (the host itself), no partner or custom
// images, one machine size (the host's), no static public IPs.

// Image is a runner image.
type Image struct {
	ID, Platform, DisplayName, Source string
	SizeGB                            int
}

// MachineSpec is a machine size.
type MachineSpec struct {
	ID                            string
	CPUCores, MemoryGB, StorageGB int
}

// Platform is the host's platform in GitHub's spelling (linux-x64, ...).
func Platform() string {
	os := strings.ToLower(HostOS())
	arch := map[string]string{"X64": "x64", "ARM64": "arm64", "ARM": "arm", "X86": "x86"}[HostArch()]
	return os + "-" + arch
}

// Images are the GitHub-owned images: the host, as ubuntu-latest on a
// Linux host (what jobs asking for it get), else under its platform.
func Images(root string) []Image {
	id, name := Platform(), "This hubd's host ("+HostOS()+" "+HostArch()+"): jobs run on the machine itself, without a virtual machine"
	if HostOS() == "Linux" {
		id = "ubuntu-latest"
	}
	return []Image{{ID: id, Platform: Platform(), DisplayName: name, Source: "github", SizeGB: Host(root).StorageGB}}
}

// Host is the machine size of this host (root: the file system the jobs'
// work directories are on).
func Host(root string) MachineSpec {
	spec := MachineSpec{CPUCores: runtime.NumCPU()}
	spec.ID = fmt.Sprintf("%d-core", spec.CPUCores)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				spec.MemoryGB = (kb + 512*1024) / (1024 * 1024)
			}
		}
		f.Close()
	}
	if root == "" {
		root = "/"
	}
	var st syscall.Statfs_t
	if syscall.Statfs(root, &st) == nil {
		spec.StorageGB = int(st.Blocks * uint64(st.Bsize) >> 30)
	}
	return spec
}

// HostedInput is the body of a hosted runner's create (name, image, size,
// runner_group_id required) or update (image_* and the rest flat).
type HostedInput struct {
	Name  *string `json:"name"`
	Image *struct {
		ID      string `json:"id"`
		Source  string `json:"source"`
		Version string `json:"version"`
	} `json:"image"`
	Size           *string `json:"size"`
	RunnerGroupID  *int64  `json:"runner_group_id"`
	MaximumRunners *int    `json:"maximum_runners"`
	EnableStaticIP *bool   `json:"enable_static_ip"`
	ImageGen       *bool   `json:"image_gen"`
	ImageSource    *string `json:"image_source"`
	ImageID        *string `json:"image_id"`
	ImageVersion   *string `json:"image_version"`
}

var hostedName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// applyHosted validates in onto h.
func (s *Service) applyHosted(ctx context.Context, sc Scope, h *model.HostedRunner, in HostedInput, root string) error {
	if in.Name != nil {
		if !hostedName.MatchString(*in.Name) {
			return model.Custom("HostedRunner", "name", "Name must be 1 to 64 letters, digits, '.', '-' or '_'.")
		}
		h.Name = *in.Name
	}
	if in.Image != nil {
		in.ImageID, in.ImageSource, in.ImageVersion = &in.Image.ID, &in.Image.Source, &in.Image.Version
	}
	if in.ImageID != nil || in.ImageSource != nil {
		id, src := h.ImageID, h.ImageSource
		if in.ImageID != nil {
			id = *in.ImageID
		}
		if in.ImageSource != nil && *in.ImageSource != "" {
			src = *in.ImageSource
		}
		if src == "" {
			src = "github"
		}
		ver := h.ImageVersion
		if in.ImageVersion != nil {
			ver = *in.ImageVersion
		}
		if src == "custom" { // one of the owner's custom images (images.go)
			if err := (&CustomImages{Svc: s}).checkCustom(ctx, sc.OwnerID(), id, ver); err != nil {
				return err
			}
			h.ImageID, h.ImageSource, h.ImageVersion = id, src, ver
			return s.applyHostedRest(ctx, sc, h, in, root)
		}
		found := false
		for _, im := range Images(root) {
			found = found || (src == im.Source && strings.EqualFold(id, im.ID))
		}
		if !found {
			return model.Custom("HostedRunner", "image", fmt.Sprintf("Image %q (%s) is not available: this hubd provides only %q, its own host, and the organization's custom images.", id, src, Images(root)[0].ID))
		}
		h.ImageID, h.ImageSource, h.ImageVersion = Images(root)[0].ID, src, ver
	}
	return s.applyHostedRest(ctx, sc, h, in, root)
}

// applyHostedRest validates in's fields but the name and image onto h.
func (s *Service) applyHostedRest(ctx context.Context, sc Scope, h *model.HostedRunner, in HostedInput, root string) error {
	if in.Size != nil {
		if *in.Size != Host(root).ID {
			return model.Custom("HostedRunner", "size", fmt.Sprintf("Size %q is not available: this hubd provides only %q, its own host.", *in.Size, Host(root).ID))
		}
		h.SizeID = *in.Size
	}
	if in.RunnerGroupID != nil {
		if _, err := s.Store.R().RunnerGroup(ctx, sc.OwnerID(), *in.RunnerGroupID); errors.Is(err, model.ErrNotFound) {
			return model.Custom("HostedRunner", "runner_group_id", "Runner group not found.")
		} else if err != nil {
			return err
		}
		h.GroupID = *in.RunnerGroupID
	}
	if in.MaximumRunners != nil {
		if *in.MaximumRunners < 1 || *in.MaximumRunners > 1000 {
			return model.Invalid("HostedRunner", "maximum_runners", "invalid")
		}
		h.MaximumRunners = *in.MaximumRunners
	}
	if in.EnableStaticIP != nil && *in.EnableStaticIP {
		return model.Custom("HostedRunner", "enable_static_ip", "hubd has no static public IP addresses to give (limit 0).")
	}
	if in.ImageGen != nil {
		h.ImageGen = *in.ImageGen // its snapshot jobs capture custom images (images.go)
	}
	return nil
}

// CreateHosted creates an organization's (or the enterprise's) hosted
// runner.
func (s *Service) CreateHosted(ctx context.Context, sc Scope, in HostedInput, root string) (*model.HostedRunner, error) {
	for field, missing := range map[string]bool{"name": in.Name == nil, "image": in.Image == nil, "size": in.Size == nil, "runner_group_id": in.RunnerGroupID == nil} {
		if missing {
			return nil, model.Invalid("HostedRunner", field, "missing_field")
		}
	}
	h := &model.HostedRunner{OrgID: sc.OwnerID(), Platform: Platform(), MaximumRunners: 10}
	if err := s.applyHosted(ctx, sc, h, in, root); err != nil {
		return nil, err
	}
	return h, s.saveHosted(ctx, sc, h, "hosted_runner.created")
}

func (s *Service) saveHosted(ctx context.Context, sc Scope, h *model.HostedRunner, event string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SaveHostedRunner(ctx, h); errors.Is(err, store.ErrDuplicate) {
			return model.Custom("HostedRunner", "name", "A hosted runner named "+h.Name+" already exists.")
		} else if err != nil {
			return err
		}
		return sc.event(ctx, tx, event, map[string]any{"hosted_runner_id": h.ID, "name": h.Name})
	})
}

// Hosted finds an organization's hosted runner.
func (s *Service) Hosted(ctx context.Context, sc Scope, id int64) (*model.HostedRunner, error) {
	return s.Store.R().HostedRunner(ctx, sc.OwnerID(), id, "")
}

// ListHosted lists an organization's hosted runners (of group gid, if
// not 0).
func (s *Service) ListHosted(ctx context.Context, sc Scope, gid int64, limit, offset int) ([]*model.HostedRunner, int, error) {
	return s.Store.R().HostedRunners(ctx, sc.OwnerID(), gid, limit, offset)
}

// UpdateHosted changes a hosted runner.
func (s *Service) UpdateHosted(ctx context.Context, sc Scope, id int64, in HostedInput, root string) (*model.HostedRunner, error) {
	h, err := s.Hosted(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	if err := s.applyHosted(ctx, sc, h, in, root); err != nil {
		return nil, err
	}
	return h, s.saveHosted(ctx, sc, h, "hosted_runner.updated")
}

// DeleteHosted removes a hosted runner (jobs it runs finish).
func (s *Service) DeleteHosted(ctx context.Context, sc Scope, id int64) (*model.HostedRunner, error) {
	h, err := s.Hosted(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	return h, s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteHostedRunner(ctx, h.OrgID, h.ID); err != nil {
			return err
		}
		return sc.event(ctx, tx, "hosted_runner.deleted", map[string]any{"hosted_runner_id": h.ID, "name": h.Name})
	})
}

// Ready reports whether any worker is online (a hosted runner's status).
func (s *Service) Ready(ctx context.Context) (bool, error) {
	n, err := s.Store.R().WorkersOnline(ctx, s.Store.Now().Add(-s.Offline))
	return n > 0, err
}

// hostedFor is the hosted runner a job of repo asking for labels may run
// on now: its runs-on names one of the organization's hosted runners (or
// else the enterprise's), whose group admits the repository and which
// runs fewer than its maximum of jobs ("" otherwise). groups are the
// organization's (orgID, 0 for a user's repository) and the enterprise's
// (0); sel[owner] the groups of each that selected the repository or
// organization.
func (s *Service) hostedFor(ctx context.Context, repo *model.Repo, wref string, labels []string, orgID int64,
	groups map[int64]map[int64]*model.RunnerGroup, sel map[int64]map[int64]bool) (string, error) {
	if len(labels) != 1 {
		return "", nil
	}
	q := s.Store.R()
	owners := []int64{0}
	if orgID != 0 {
		owners = []int64{orgID, 0}
	}
	for _, owner := range owners {
		h, err := q.HostedRunner(ctx, owner, 0, labels[0])
		if errors.Is(err, model.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		g := groups[owner][h.GroupID]
		if g == nil || !groupAdmits(g, owner != 0 || orgID != 0, sel[owner][g.ID], repo.Visibility == model.Public, wref) {
			return "", nil
		}
		n, err := q.JobsRunningOn(ctx, h.Name)
		if err != nil || n >= h.MaximumRunners {
			return "", err
		}
		return h.Name, nil
	}
	return "", nil
}

package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sync"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// refused are the system calls a job may not make (EPERM): they reach
// beyond the job (mounts, namespaces, other processes' memory, the kernel's
// keyring, BPF, modules, the clock, the machine's state). Normal CI work —
// shells, git, compilers, node, curl, tar — never needs them.
var refused = []string{
	"mount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
	"unshare", "setns",
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"init_module", "finit_module", "delete_module",
	"kexec_load", "kexec_file_load", "reboot",
	"swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
	"open_by_handle_at", "name_to_handle_at",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"iopl", "ioperm", "syslog", "vhangup", "lookup_dcookie",
	"fanotify_init",
}

// namespaceFlags are clone's flags that make namespaces.
const namespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// allowedPersonas are the personality(2) values a job may set: the query
// (0xffffffff), Linux, 32-bit Linux and the uname-2.6 emulation, alone or
// together. ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC are refused.
var allowedPersonas = []uint64{0, 0x0008, 0x0020000, 0x0020008, 0xffffffff} // PER_LINUX, PER_LINUX32, UNAME26

func policy() seccomp.Policy {
	var persona seccomp.ArgumentConditions
	for _, v := range allowedPersonas {
		persona = append(persona, seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: v})
	}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno, Names: refused},
			{Action: seccomp.ActionErrno, NamesWithCondtions: []seccomp.NameWithConditions{
				{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: namespaceFlags}}},
				{Name: "personality", Conditions: persona},
			}},
			// clone3 passes its flags in memory a filter cannot read:
			// ENOSYS makes libc fall back to clone, which is filtered.
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"clone3"}},
			// io_uring performs file and socket operations a filter never
			// sees; libraries fall back to ordinary calls.
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}},
		},
	}
}

var seccompProgram struct {
	once sync.Once
	code []byte
	err  error
}

// seccompCode is the filter as bubblewrap's --seccomp reads it: an array of
// struct sock_filter in the machine's byte order. A system call of another
// architecture (i386 via int 0x80 on x86_64) kills the process, so that
// calling convention cannot step around the filter.
func seccompCode() ([]byte, error) {
	seccompProgram.once.Do(func() {
		p := policy()
		insts, err := p.Assemble()
		if err != nil {
			seccompProgram.err = fmt.Errorf("sandbox: seccomp filter: %w", err)
			return
		}
		native, err := arch.GetInfo("")
		if err != nil {
			seccompProgram.err = fmt.Errorf("sandbox: seccomp filter: %w", err)
			return
		}
		guard := []bpf.Instruction{
			bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
			bpf.RetConstant{Val: uint32(seccomp.ActionKillProcess)},
		}
		raw, err := bpf.Assemble(append(guard, insts...))
		if err != nil {
			seccompProgram.err = fmt.Errorf("sandbox: seccomp filter: %w", err)
			return
		}
		var b bytes.Buffer
		for _, r := range raw {
			binary.Write(&b, binary.NativeEndian, struct {
				Code   uint16
				Jt, Jf uint8
				K      uint32
			}{r.Op, r.Jt, r.Jf, r.K})
		}
		seccompProgram.code = b.Bytes()
	})
	return seccompProgram.code, seccompProgram.err
}

// seccompFile is a descriptor bubblewrap reads the filter from.
func seccompFile() (*os.File, error) {
	code, err := seccompCode()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	// The program is a few kilobytes, well within a pipe's buffer.
	if _, err := w.Write(code); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: seccomp filter: %w", err)
	}
	return r, nil
}

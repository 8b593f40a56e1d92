#!/usr/bin/env bash
# SSH transport benchmark: a clone of a generated repository over hubd's SSH
# against a clone of the same repository over hubd's smart HTTP, with
# references on the same bare repository (the one hubd stores):
#
#   sshd     OpenSSH's own sshd (as an unprivileged user, on a high port,
#            ForceCommand git-upload-pack, AcceptEnv GIT_PROTOCOL): the
#            ceiling any SSH server reaches with this ssh client
#   daemon   git daemon (git://, no encryption)
#   file     git clone file:// (no network at all)
#
# The clones run in rounds, each variant once a round, the order rotating
# from round to round so that a machine whose speed drifts slows them alike;
# the script prints each round's wall times and each variant's ratio to smart
# HTTP in that round, then the medians of those ratios (goal: hubd SSH / smart
# HTTP of 1.1 or less). It then times a handshake: `git ls-remote` (sign-in
# and the ref advertisement, no pack) over each transport.
#
#   bash bench/ssh.sh              # 50 MB, 1000 commits, 7 rounds
#   MB=110 COMMITS=2000 RUNS=5 bash bench/ssh.sh
#   REFS=0 bash bench/ssh.sh       # hubd's SSH and smart HTTP only
#
# CPU: the client's (git and ssh, and the ssh client alone under
# /usr/bin/time) and hubd's with the git processes it ran (from /proc),
# medians.
#
# The sshd reference needs /usr/sbin/sshd (Debian: openssh-server); run as
# root, the script runs it as the system user hubd-sshbench (created when
# missing), since sshd started by a user signs in only as that user.
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${MB:-50}
COMMITS=${COMMITS:-1000}
RUNS=${RUNS:-7}
REFS=${REFS:-1}

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/genrepo" ./bench/genrepo
HUBD=${HUBD_ADDR:-127.0.0.1:18490}
SSH=${SSH_ADDR:-127.0.0.1:18491}
SSHD_PORT=${SSHD_PORT:-18492}
DAEMON_PORT=${DAEMON_PORT:-18493}

echo "generating a ${MB} MB repository with ${COMMITS} commits"
git init -q --bare "$work/big.git"
"$work/genrepo" -commits "$COMMITS" -mb "$MB" | git -C "$work/big.git" fast-import --quiet
git -C "$work/big.git" repack -adq
du -sh "$work/big.git/objects/pack" | awk '{print "pack size: " $1}'

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --ssh-addr "$SSH" --actions-workers 0 \
  --rate-limit-authenticated 100000000 --rate-limit-anonymous 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/hubd.log" || { cat "$work/hubd.log"; echo "hubd did not start" >&2; exit 1; }
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }
api -d '{"name":"big","private":true}' "http://$HUBD/api/v3/user/repos" >/dev/null
ssh-keygen -q -t ed25519 -N "" -f "$work/id_ed25519"
api -d "{\"title\":\"bench\",\"key\":\"$(cat "$work/id_ed25519.pub")\"}" "http://$HUBD/api/v3/user/keys" >/dev/null
git -C "$work/big.git" push -q "http://$LOGIN:$TOKEN@$HUBD/$LOGIN/big.git" main
ssh_url=$(api "http://$HUBD/api/v3/repos/$LOGIN/big" | sed -n 's/.*"ssh_url": *"\([^"]*\)".*/\1/p')
echo "ssh_url: $ssh_url"
SSHOPTS="-i $work/id_ed25519 -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
export GIT_SSH_COMMAND="ssh $SSHOPTS"

variants=("http=http://$LOGIN:$TOKEN@$HUBD/$LOGIN/big.git" "ssh=$ssh_url")
if [ "$REFS" = 1 ]; then
  # The references serve hubd's own copy of the repository.
  repo=$(ls -d "$work"/data/git/repositories/*/*.git | head -1)
  chmod -R a+rX "$work/data/git"
  variants+=("file=file://$repo")
  git daemon --reuseaddr --export-all --listen=127.0.0.1 --port="$DAEMON_PORT" \
    --base-path="$(dirname "$repo")" "$repo" >"$work/daemon.log" 2>&1 &
  pids+=($!)
  variants+=("daemon=git://127.0.0.1:$DAEMON_PORT/$(basename "$repo")")
  if [ -x /usr/sbin/sshd ]; then
    user=$(id -un)
    if [ "$(id -u)" = 0 ]; then
      user=hubd-sshbench
      id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /bin/sh "$user"
    fi
    mkdir -p "$work/sshd"
    ssh-keygen -q -t ed25519 -N "" -f "$work/sshd/host_ed25519"
    cp "$work/id_ed25519.pub" "$work/sshd/authorized_keys"
    cat >"$work/sshd/config" <<EOF
ListenAddress 127.0.0.1:$SSHD_PORT
HostKey $work/sshd/host_ed25519
AuthorizedKeysFile $work/sshd/authorized_keys
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
AcceptEnv GIT_PROTOCOL
ForceCommand git -c safe.directory='*' upload-pack '$repo'
EOF
    chown -R "$user" "$work/sshd"
    if [ "$(id -u)" = 0 ]; then
      setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
        /usr/sbin/sshd -D -e -f "$work/sshd/config" 2>"$work/sshd/log" &
    else
      /usr/sbin/sshd -D -e -f "$work/sshd/config" 2>"$work/sshd/log" &
    fi
    pids+=($!)
    for _ in $(seq 1 50); do ssh $SSHOPTS -p "$SSHD_PORT" "$user@127.0.0.1" </dev/null >/dev/null 2>&1 && break; sleep 0.2; done
    variants+=("sshd=ssh://$user@127.0.0.1:$SSHD_PORT/big.git")
  else
    echo "no /usr/sbin/sshd (apt-get install openssh-server): the sshd reference is left out"
  fi
fi

hubd_pid=${pids[0]}
python3 - "$RUNS" "$work" "$hubd_pid" "$SSHOPTS" "${variants[@]}" <<'PY'
import os, resource, shutil, statistics, subprocess, sys, time
runs, work, hubd, sshopts = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
variants = [v.split("=", 1) for v in sys.argv[5:]]
names = [n for n, _ in variants]
dest, sshcpu = os.path.join(work, "clone"), os.path.join(work, "sshcpu")
tick = os.sysconf("SC_CLK_TCK")
def hubd_cpu():  # hubd's CPU and that of the git processes it waited for
    f = open("/proc/%d/stat" % hubd).read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in f[11:15]) / tick
def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
# For the CPU of the ssh client alone, a few more clones run it under
# /usr/bin/time, which writes it to a file (the shell and time add some
# 30 ms to a clone, so the timed rounds run ssh as it is).
plain = dict(os.environ)
timed = dict(plain, GIT_SSH_COMMAND="/usr/bin/time -o %s -f '%%U %%S' ssh %s" % (sshcpu, sshopts),
             # git knows OpenSSH by the command's name; told, it still
             # sends GIT_PROTOCOL (SendEnv) for protocol v2.
             GIT_SSH_VARIANT="ssh")
def run(args, env=plain):
    p = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("%s: %s" % (" ".join(args), p.stderr))
def clone(name, url, env=plain):
    shutil.rmtree(dest, ignore_errors=True)
    if os.path.exists(sshcpu):
        os.remove(sshcpu)
    h, c = hubd_cpu(), children_cpu()
    t = time.monotonic()
    run(["git", "clone", "-q", "--bare", url, dest], env)
    t = time.monotonic() - t
    time.sleep(0.2)  # hubd reaps its git processes
    ssh = sum(map(float, open(sshcpu).read().split())) if os.path.exists(sshcpu) else 0.0
    return {"wall": t, "client": children_cpu() - c, "ssh": ssh,
            "hubd": hubd_cpu() - h if name in ("http", "ssh") else None}
for n, url in variants:
    clone(n, url)  # warm-up: the pack files in the page cache
rounds = []
for i in range(runs):
    k = i % len(variants)
    order = variants[k:] + variants[:k]
    t = {n: clone(n, url) for n, url in order}
    rounds.append(t)
    print("round %d: " % (i + 1) + "  ".join("%s %.3fs (%.2fx)" % (n, t[n]["wall"], t[n]["wall"] / t["http"]["wall"]) for n in names))
if os.access("/usr/bin/time", os.X_OK):
    for n, url in variants:
        if url.startswith("ssh://"):
            ssh = statistics.median(clone(n, url, timed)["ssh"] for _ in range(3))
            for r in rounds:
                r[n]["ssh"] = ssh
med = lambda n, k: statistics.median(r[n][k] for r in rounds)
print("medians (wall; CPU seconds of the client (git and ssh), of the ssh client alone (3 more clones),")
print("of hubd with the git processes it ran):")
for n in names:
    print("  %-7s wall %.3fs  client %.3fs  ssh %.3fs  hubd %s" % (n, med(n, "wall"), med(n, "client"), med(n, "ssh"),
          "%.3fs" % med(n, "hubd") if rounds[0][n]["hubd"] is not None else "-"))
print("median ratio to smart HTTP (of each round's ratio):")
for n in names[1:]:
    print("  %-7s / http: %.2fx" % (n, statistics.median(r[n]["wall"] / r["http"]["wall"] for r in rounds)))
if "sshd" in names:
    print("  ssh / sshd (hubd's SSH against OpenSSH's): %.2fx" % statistics.median(r["ssh"]["wall"] / r["sshd"]["wall"] for r in rounds))
def ls_remote(url):
    t = time.monotonic()
    run(["git", "ls-remote", url])
    return time.monotonic() - t
lr = {n: statistics.median(ls_remote(url) for _ in range(9)) for n, url in variants}
print("ls-remote (sign-in and ref advertisement, median of 9): " + "  ".join("%s %.0fms" % (n, lr[n] * 1000) for n in names))
PY

#!/usr/bin/env bash
# Starts a private OpenSSH server on 127.0.0.1 for the SSH tests, with its own config, host key and a
# generated user key: nothing of this machine's own SSH setup (~/.ssh, /etc/ssh) is read or changed.
# Prints the variables to use. Idempotent: a server already answering is reused.
#
#   eval "$(scripts/ssh-test-env.sh)"    # then: cargo test
#
# Needs root for apt-get (Debian's openssh-server is installed when missing) and for sshd's
# privilege-separation folder. The client config it writes (SIDEKICKS_SSH_CONFIG, read by Sidekicks
# instead of ~/.ssh/config) names these hosts:
#   sidekicks-test          the server, its host key known, the generated key accepted
#   sidekicks-test-unknown  the same server with no known host key (never accepted silently)
#   sidekicks-test-nokey    the same server with a key it does not accept
#   sidekicks-test-down     a port nothing listens on
#   sidekicks-test-drop     the server again, for the test that kills its connection
#   sidekicks-test-changed  the server, but known_hosts holds another key for it
#   sidekicks-test-far      the server again, for team members whose copies are kept there: its
#                           XDG_DATA_HOME/XDG_CACHE_HOME/XDG_RUNTIME_DIR are below this folder's far/ (SetEnv), so
#                           this user's own are untouched; tests give it folders of their own
# Each is on a port of its own: ssh shares one connection per host and port, and a shared one would
# skip the host key check and the login that these tests are about.
set -euo pipefail
dir=${SIDEKICKS_SSH_DIR:-/tmp/sidekicks-ssh}
port=${SIDEKICKS_SSH_PORT:-42022}
down_port=$((port + 1)) unknown_port=$((port + 2)) nokey_port=$((port + 3)) drop_port=$((port + 4))
changed_port=$((port + 5)) far_port=$((port + 6))
mkdir -p "$dir" "$dir/far/run"
chmod 700 "$dir" "$dir/far/run"

if ! [ -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then
  echo "installing openssh-server and openssh-client…" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server openssh-client) >&2
fi

[ -f "$dir/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C sidekicks-test-host -f "$dir/host_ed25519"
[ -f "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C sidekicks-test-user -f "$dir/id_ed25519"
[ -f "$dir/other_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C sidekicks-test-refused -f "$dir/other_ed25519"
cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
chmod 600 "$dir/authorized_keys"
user=$(id -un)

cat > "$dir/sshd_config.new" <<EOF
Port $port
Port $unknown_port
Port $nokey_port
Port $drop_port
Port $changed_port
Port $far_port
ListenAddress 127.0.0.1
HostKey $dir/host_ed25519
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
AllowUsers $user
AcceptEnv LANG LC_* XDG_DATA_HOME XDG_CACHE_HOME XDG_RUNTIME_DIR
MaxSessions 100
MaxStartups 100:30:200
LogLevel VERBOSE
EOF

key=$(cut -d' ' -f1,2 "$dir/host_ed25519.pub")
printf '[127.0.0.1]:%s %s\n' "$port" "$key" "$nokey_port" "$key" "$drop_port" "$key" "$far_port" "$key" > "$dir/known_hosts"
: > "$dir/known_hosts_empty"
# Another key where the server's should be: ssh must refuse, as for a machine reinstalled or a
# machine in between.
printf '[127.0.0.1]:%s %s\n' "$changed_port" "$(cut -d' ' -f1,2 "$dir/other_ed25519.pub")" > "$dir/known_hosts_changed"
common="  HostName 127.0.0.1
  User $user
  IdentitiesOnly yes
  GlobalKnownHostsFile /dev/null"
cat > "$dir/ssh_config" <<EOF
Host sidekicks-test
  Port $port
  IdentityFile $dir/id_ed25519
  UserKnownHostsFile $dir/known_hosts
$common
Host sidekicks-test-unknown
  Port $unknown_port
  IdentityFile $dir/id_ed25519
  UserKnownHostsFile $dir/known_hosts_empty
$common
Host sidekicks-test-nokey
  Port $nokey_port
  IdentityFile $dir/other_ed25519
  UserKnownHostsFile $dir/known_hosts
$common
Host sidekicks-test-down
  Port $down_port
  IdentityFile $dir/id_ed25519
  UserKnownHostsFile $dir/known_hosts
$common
Host sidekicks-test-drop
  Port $drop_port
  IdentityFile $dir/id_ed25519
  UserKnownHostsFile $dir/known_hosts
$common
Host sidekicks-test-far
  Port $far_port
  IdentityFile $dir/id_ed25519
  UserKnownHostsFile $dir/known_hosts
  SetEnv XDG_DATA_HOME=$dir/far/data XDG_CACHE_HOME=$dir/far/cache XDG_RUNTIME_DIR=$dir/far/run
$common
Host sidekicks-test-changed
  Port $changed_port
  IdentityFile $dir/id_ed25519
  UserKnownHostsFile $dir/known_hosts_changed
$common
EOF

answers() {
  ssh -F "$dir/ssh_config" -o BatchMode=yes -o ConnectTimeout=5 sidekicks-test true 2>/dev/null &&
    ssh -F "$dir/ssh_config" -o BatchMode=yes -o ConnectTimeout=5 sidekicks-test-drop true 2>/dev/null
}
# A server started with another config (an older version of this script) is started again.
fresh=0
cmp -s "$dir/sshd_config.new" "$dir/sshd_config" || fresh=1
mv "$dir/sshd_config.new" "$dir/sshd_config"
if [ "$fresh" = 1 ] || ! answers; then
  if [ -f "$dir/sshd.pid" ]; then kill "$(cat "$dir/sshd.pid")" 2>/dev/null || true; fi
  mkdir -p /run/sshd
  chmod 755 /run/sshd
  /usr/sbin/sshd -t -f "$dir/sshd_config" >&2
  echo "starting sshd on 127.0.0.1:$port (log in $dir/sshd.log)…" >&2
  /usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log"
  for _ in $(seq 1 50); do
    answers && break
    sleep 0.2
  done
  answers || { echo "sshd did not answer; see $dir/sshd.log" >&2; tail -20 "$dir/sshd.log" >&2; exit 1; }
fi
echo "export SIDEKICKS_SSH_CONFIG=$dir/ssh_config SIDEKICKS_TEST_SSH_HOST=sidekicks-test"

#!/usr/bin/env bash
# Starts a private Docker daemon for the container tests and builds their image, with no registry and
# no download at test time. Prints the DOCKER_HOST to use. Idempotent: a daemon already answering on
# the socket is reused.
#
#   eval "$(scripts/docker-test-env.sh)"    # then: cargo test
#
# Needs root (apt-get and dockerd). Installs Debian's docker.io and busybox-static when missing.
# The image sidekicks-test:busybox-2 is a busybox rootfs plus the C libraries the sidekicks binary links
# to (copied from this machine), so the demo agent runs inside the container from the host's build,
# bind-mounted at the same path.
set -euo pipefail
dir=${SIDEKICKS_DOCKER_DIR:-/tmp/sidekicks-docker}
sock="$dir/docker.sock"
export DOCKER_HOST="unix://$sock"
mkdir -p "$dir"

if ! command -v dockerd >/dev/null || ! [ -x /bin/busybox ]; then
  echo "installing docker.io and busybox-static…" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io busybox-static) >&2
fi

if ! docker info >/dev/null 2>&1; then
  echo "starting dockerd (data in $dir)…" >&2
  nohup dockerd --data-root "$dir/data" --exec-root "$dir/exec" -H "$DOCKER_HOST" --pidfile "$dir/pid" \
    >"$dir/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; see $dir/dockerd.log" >&2; tail -20 "$dir/dockerd.log" >&2; exit 1; }
fi

if ! docker image inspect sidekicks-test:busybox-2 >/dev/null 2>&1; then
  echo "building the image sidekicks-test:busybox-2…" >&2
  root=$(mktemp -d)
  mkdir -p "$root/bin" "$root/tmp" "$root/etc" "$root/proc" "$root/dev" "$root/sys"
  cp /bin/busybox "$root/bin/"
  for applet in $("$root/bin/busybox" --list); do [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"; done
  # bash, util-linux's setsid (with -f) and coreutils' nohup: busybox lacks `disown`, `setsid -f` and
  # `nohup`, and the terminal tests start every kind of background job inside the container too.
  for tool in /bin/bash /usr/bin/setsid /usr/bin/nohup; do rm -f "$root/bin/$(basename "$tool")"; cp -L "$tool" "$root/bin/"; done
  echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
  # The C libraries a Rust binary of this machine links to, at the same paths.
  for lib in /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libm.so.6 \
             /lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libpthread.so.0 /lib/x86_64-linux-gnu/libdl.so.2 \
             /lib/x86_64-linux-gnu/libtinfo.so.6; do
    if [ -e "$lib" ]; then mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; fi
  done
  tar -C "$root" -c . | docker import -c 'ENV PATH=/bin' -c 'CMD ["/bin/sh"]' - sidekicks-test:busybox-2 >/dev/null
  rm -rf "$root"
fi
echo "export DOCKER_HOST=$DOCKER_HOST"

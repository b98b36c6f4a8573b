#!/usr/bin/env bash
# Gets Podman ready for the Podman tests, with its own settings and storage (nothing of the
# machine's Podman is touched) and the test image copied from the private Docker daemon, with no
# registry and no download at test time. Prints the variables to export. Idempotent.
#
#   eval "$(scripts/docker-test-env.sh)"; eval "$(scripts/podman-test-env.sh)"    # then: cargo test
#
# Needs root (apt-get, rootful Podman) and the Docker test image (scripts/docker-test-env.sh).
# Installs Debian's podman when missing. The settings choose runc (crun refuses this machine's
# mixed cgroup v1/v2 mounts) and limits the container may set without CAP_SYS_RESOURCE (Podman
# otherwise asks for more open files and processes than the machine's hard limits).
set -euo pipefail
dir=${SIDEKICKS_PODMAN_DIR:-/tmp/sidekicks-podman}
mkdir -p "$dir"

if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  echo "installing podman…" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc) >&2
fi

files=$(ulimit -Hn)
cat >"$dir/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$files:$files", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
cat >"$dir/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$dir/storage"
runroot = "$dir/run"
EOF
export CONTAINERS_CONF="$dir/containers.conf" CONTAINERS_STORAGE_CONF="$dir/storage.conf"

image=sidekicks-test:busybox-2
if ! podman image exists "$image"; then
  echo "copying the image $image from Docker…" >&2
  docker save "$image" | podman load -q >&2
fi
podman run --rm "$image" true >&2 || { echo "podman cannot run a container here" >&2; exit 1; }
echo "export CONTAINERS_CONF=$CONTAINERS_CONF CONTAINERS_STORAGE_CONF=$CONTAINERS_STORAGE_CONF"

#!/usr/bin/env bash
# Builds krew (the kubectl plugin manager) from its Go module into the user cache and prints
# the path of the binary. Used by tests/krew_install.rs; nothing is committed.
#
#   scripts/krew.sh            # build if missing, print the path
#   KREW_VERSION=v0.4.4 scripts/krew.sh
#
# Needs Go. The binary goes to ${XDG_CACHE_HOME:-~/.cache}/kubectl-kueue/krew-<version>/krew.
set -euo pipefail

version="${KREW_VERSION:-v0.4.4}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-kueue/krew-${version}"
bin="${cache}/krew"

if [[ -x "${bin}" ]]; then
  echo "${bin}"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "scripts/krew.sh: go is not on PATH; install Go to build krew ${version}" >&2
  exit 1
fi

mkdir -p "${cache}"
staging="$(mktemp -d "${cache}.staging.XXXXXX")"
trap 'rm -rf "${staging}"' EXIT
echo "scripts/krew.sh: building sigs.k8s.io/krew/cmd/krew@${version} (first time only)..." >&2
GOBIN="${staging}" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "sigs.k8s.io/krew/cmd/krew@${version}" >&2
mv "${staging}/krew" "${bin}"
echo "${bin}"

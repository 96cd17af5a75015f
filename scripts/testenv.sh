#!/usr/bin/env bash
# Builds the real Kubernetes control plane the test suite runs against, once, and caches it.
#
#   scripts/testenv.sh            build what is missing (prints the bin directory on the last line)
#   scripts/testenv.sh --print    print the bin directory the tests will use, build nothing
#   scripts/testenv.sh --check    exit 0 when the cache is complete, 1 otherwise; build nothing
#
# What it builds, from Go modules pinned in testenv/*/go.mod and go.sum (nothing is vendored or
# committed; the Go module proxy serves the sources):
#   testenv/kubernetes  kube-apiserver, kube-controller-manager, kube-scheduler, kubectl (k8s.io/kubernetes)
#   testenv/etcd        etcd (go.etcd.io/etcd/server/v3, wrapped by testenv/etcd/main.go)
#   testenv/kwok        kwok (sigs.k8s.io/kwok), simulated nodes and pods
#
# Where: ${KUEUE_TESTENV_CACHE:-${XDG_CACHE_HOME:-~/.cache}/kubectl-kueue/testenv}/<versions>/bin.
# The tests look there too (tests/support/binaries.rs); KUEUE_TESTENV_BIN overrides both with a
# directory of prebuilt binaries, in which case this script only checks that directory.
#
# A build goes into a staging directory next to the cache entry, gets checked (every binary runs
# and reports the pinned version), gets a .complete stamp, and only then is renamed into place, so
# an interrupted or failed build never looks complete. A cold build takes a long time (see
# README); a complete cache makes this script a no-op that returns in well under a second.
set -euo pipefail

# Bump when the way the binaries are built changes (flags, stamping), to force a rebuild.
RECIPE=1
# The oldest Go that the pinned modules accept (their go.mod `go` lines). We never download a
# toolchain (GOTOOLCHAIN=local): the machine's Go must be at least this.
GO_MIN=1.26.0

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TESTENV="$ROOT/testenv"
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

log() { printf 'testenv: %s\n' "$*" >&2; }
die() { printf 'testenv: error: %s\n' "$*" >&2; exit 1; }

mode=build
case "${1:-}" in
  "") ;;
  --print) mode=print ;;
  --check) mode=check ;;
  -h|--help) sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown argument '$1' (try --help)" ;;
esac

# The version of a module as pinned in one of our go.mod files: the single source of truth.
pinned() {
  local v
  v="$(awk -v m="$2" '($1 == m || ($1 == "require" && $2 == m)) { print ($1 == "require") ? $3 : $2; exit }' "$TESTENV/$1/go.mod")"
  [[ -n "$v" ]] || die "cannot find the version of $2 in testenv/$1/go.mod"
  printf '%s' "$v"
}
K8S_VERSION="$(pinned kubernetes k8s.io/kubernetes)"
ETCD_VERSION="$(pinned etcd go.etcd.io/etcd/server/v3)"
KWOK_VERSION="$(pinned kwok sigs.k8s.io/kwok)"
KEY="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}"

CACHE="${KUEUE_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-kueue/testenv}"
DEST="$CACHE/$KEY"

# Everything that decides what gets built. A change in any of these rebuilds the cache entry.
inputs_hash() {
  {
    echo "recipe=$RECIPE"
    (cd "$TESTENV" && find . -type f \( -name go.mod -o -name go.sum -o -name '*.go' \) | LC_ALL=C sort | xargs sha256sum)
  } | sha256sum | cut -c1-16
}
HASH="$(inputs_hash)"

complete() { # $1: a directory holding bin/ and .complete
  [[ -f "$1/.complete" ]] && [[ "$(head -n1 "$1/.complete")" == "$HASH" ]] || return 1
  local b
  for b in "${BINARIES[@]}"; do [[ -x "$1/bin/$b" ]] || return 1; done
}

if [[ -n "${KUEUE_TESTENV_BIN:-}" ]]; then
  for b in "${BINARIES[@]}"; do
    [[ -x "$KUEUE_TESTENV_BIN/$b" ]] || die "KUEUE_TESTENV_BIN=$KUEUE_TESTENV_BIN has no executable '$b'; unset it to build the pinned binaries into $DEST/bin"
  done
  [[ "$mode" == build ]] && log "using prebuilt binaries from KUEUE_TESTENV_BIN=$KUEUE_TESTENV_BIN"
  echo "$KUEUE_TESTENV_BIN"
  exit 0
fi

case "$mode" in
  print) echo "$DEST/bin"; exit 0 ;;
  check) complete "$DEST" && { echo "$DEST/bin"; exit 0; }; log "not built yet: $DEST/bin"; exit 1 ;;
esac

if complete "$DEST"; then
  log "control plane binaries are cached ($KEY)"
  echo "$DEST/bin"
  exit 0
fi

# Go's default install location, for environments whose PATH lacks it.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || die "Go is not installed (or not on PATH). Building the test control plane needs Go >= $GO_MIN (https://go.dev/doc/install, or your distribution's golang package); or set KUEUE_TESTENV_BIN to a directory with prebuilt $(IFS=,; echo "${BINARIES[*]}"), or KUEUE_SKIP_CLUSTER_TESTS=1 to run only the tests that need no cluster."
GO_VERSION="$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || true)"
GO_VERSION="${GO_VERSION#go}"
GO_VERSION="${GO_VERSION%%[-+ ]*}"
[[ -n "$GO_VERSION" ]] || die "could not run 'go env GOVERSION'"
if [[ "$(printf '%s\n%s\n' "$GO_MIN" "$GO_VERSION" | sort -V | head -n1)" != "$GO_MIN" ]]; then
  die "Go $GO_VERSION is too old: the pinned Kubernetes $K8S_VERSION needs Go >= $GO_MIN"
fi

mkdir -p "$CACHE"
# One build at a time per cache (two test runs starting together must not both build).
exec 9>"$CACHE/.lock"
if command -v flock >/dev/null 2>&1; then
  if ! flock -n 9; then
    log "another testenv build holds $CACHE/.lock; waiting for it"
    flock 9
  fi
  if complete "$DEST"; then
    log "control plane binaries are cached ($KEY)"
    echo "$DEST/bin"
    exit 0
  fi
  # We hold the lock, so no build is running: staging dirs left by a killed build are garbage.
  rm -rf "$CACHE"/.staging-* "$CACHE"/.old-*
fi

STAGING="$(mktemp -d "$CACHE/.staging-$KEY.XXXXXX")"
HEARTBEAT=""
cleanup() {
  [[ -n "$HEARTBEAT" ]] && kill "$HEARTBEAT" 2>/dev/null || true
  rm -rf "$STAGING"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$STAGING/bin"

export GOTOOLCHAIN=local
# -mod=readonly: go.mod/go.sum are the pins; a build never edits them.
export GOFLAGS="-mod=readonly -buildvcs=false -trimpath"
# Static binaries, no C toolchain needed (how upstream builds these too).
export CGO_ENABLED=0
BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

# -X stamps for k8s.io/component-base/version and k8s.io/client-go/pkg/version, so that
# `kubectl version`, /version and the components' --version report the real release.
kube_ldflags() {
  local v="$1" major minor rest flags="-s -w" pkg
  rest="${v#v}"; major="${rest%%.*}"; rest="${rest#*.}"; minor="${rest%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$BUILD_DATE"
  done
  printf '%s' "$flags"
}

# go build, niced so the rest of the machine keeps working, with a heartbeat so a long silent
# compile does not look hung. $1: module dir under testenv/; $2: ldflags; rest: packages.
build() {
  local mod="$1" ldflags="$2"; shift 2
  local start=$SECONDS
  ( while sleep 60; do log "  ... still compiling $mod ($(( (SECONDS - start) / 60 )) min)"; done ) &
  HEARTBEAT=$!
  local rc=0 out="$STAGING/go-build-$mod.log"
  (cd "$TESTENV/$mod" && nice -n 10 go build -ldflags "$ldflags" -o "$STAGING/bin/" "$@") >"$out" 2>&1 || rc=$?
  kill "$HEARTBEAT" 2>/dev/null || true
  wait "$HEARTBEAT" 2>/dev/null || true
  HEARTBEAT=""
  if [[ $rc -ne 0 ]]; then
    grep -v '^go: downloading' "$out" | tail -n 40 >&2 || true
    die "go build in testenv/$mod failed (exit $rc); nothing was cached"
  fi
  local downloaded
  downloaded="$(grep -c '^go: downloading' "$out" || true)"
  [[ "$downloaded" -gt 0 ]] && log "  downloaded $downloaded modules from the Go module proxy"
  rm -f "$out"
  log "  done in $(( (SECONDS - start) / 60 ))m$(( (SECONDS - start) % 60 ))s"
}

TOTAL_START=$SECONDS
log "building the test control plane into $DEST/bin"
log "  Kubernetes $K8S_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION; Go $GO_VERSION, $(nproc 2>/dev/null || echo '?') cores"
log "  a cold build takes about 6-11 minutes on 2 cores (plus ~1 GiB of Go modules to download); later runs reuse the cache"

log "[1/3] etcd $ETCD_VERSION"
# `go build -o dir/ .` names the binary after the module path's last element: etcd.
build etcd "-s -w" .

log "[2/3] kwok $KWOK_VERSION"
build kwok "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" sigs.k8s.io/kwok/cmd/kwok

log "[3/3] Kubernetes $K8S_VERSION: kube-apiserver, kube-controller-manager, kube-scheduler, kubectl"
build kubernetes "$(kube_ldflags "$K8S_VERSION")" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl

log "checking the binaries"
expect_version() { # $1: binary, $2: expected substring, rest: args
  local bin="$1" want="$2" out; shift 2
  out="$("$STAGING/bin/$bin" "$@" 2>&1)" || die "$bin $* failed: $out"
  [[ "$out" == *"$want"* ]] || die "$bin $* reported '$out', expected it to mention $want"
}
expect_version etcd "${ETCD_VERSION#v}" --version
expect_version kwok "${KWOK_VERSION#v}" --version
expect_version kube-apiserver "$K8S_VERSION" --version
expect_version kube-controller-manager "$K8S_VERSION" --version
expect_version kube-scheduler "$K8S_VERSION" --version
expect_version kubectl "$K8S_VERSION" version --client

# The stamp goes in last; then one rename publishes the whole entry.
{
  echo "$HASH"
  echo "built $BUILD_DATE in $(( SECONDS - TOTAL_START ))s with Go $GO_VERSION"
} > "$STAGING/.complete"
if [[ -e "$DEST" ]]; then
  OLD="$(mktemp -d "$CACHE/.old-$KEY.XXXXXX")"
  mv "$DEST" "$OLD/"
  rm -rf "$OLD"
fi
mv "$STAGING" "$DEST"
log "cached in $DEST/bin ($(du -sh "$DEST" | cut -f1)), build took $(( (SECONDS - TOTAL_START) / 60 ))m$(( (SECONDS - TOTAL_START) % 60 ))s"
echo "$DEST/bin"

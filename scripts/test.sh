#!/usr/bin/env bash
# The project's test command: the style gates, then the test control plane (built once and
# cached), then every test, the ones against a real Kubernetes control plane included.
#
#   scripts/test.sh                             everything
#   KUEUE_SKIP_CLUSTER_TESTS=1 scripts/test.sh  no control-plane build; the tests that need a
#                                               cluster are compiled as ignored and reported so
#   KUEUE_SKIP_GATES=1 scripts/test.sh          leave out fmt, clippy and doc (a quick local run)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { echo "test: $*" >&2; }

if [[ -z "${KUEUE_SKIP_GATES:-}" || "${KUEUE_SKIP_GATES}" == 0 ]]; then
  step "cargo fmt --check"
  cargo fmt --all --check
  step "cargo clippy (with and without the cli feature), warnings denied"
  cargo clippy --all-targets -- -D warnings
  cargo clippy --no-default-features --all-targets -- -D warnings
  step "cargo doc, warnings denied"
  RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
fi

if [[ -n "${KUEUE_SKIP_CLUSTER_TESTS:-}" && "${KUEUE_SKIP_CLUSTER_TESTS}" != 0 ]]; then
  step "KUEUE_SKIP_CLUSTER_TESTS is set: no control plane; cluster tests are reported as ignored"
else
  scripts/testenv.sh >/dev/null
fi

step "cargo test --all-targets"
cargo test --all-targets
step "the engine, the API types and simulate without the cli feature"
cargo test --no-default-features --lib --test it

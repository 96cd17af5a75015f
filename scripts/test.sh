#!/usr/bin/env bash
# The project's test command: builds (or reuses) the test control plane, then runs every test,
# the ones against a real Kubernetes control plane included.
#
#   scripts/test.sh                             everything
#   KUEUE_SKIP_CLUSTER_TESTS=1 scripts/test.sh  only the fast tests: no control-plane build, and
#                                               the tests that need a cluster return early
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ -n "${KUEUE_SKIP_CLUSTER_TESTS:-}" && "${KUEUE_SKIP_CLUSTER_TESTS}" != 0 ]]; then
  echo "test: KUEUE_SKIP_CLUSTER_TESTS is set: no control plane; cluster tests are skipped" >&2
else
  scripts/testenv.sh >/dev/null
fi

cargo test --all-targets
cargo test --no-default-features --lib

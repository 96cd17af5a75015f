#!/usr/bin/env bash
# The performance harness (issue 10): upstream Kueue's scheduler-performance scenarios, and
# ours, against a fresh etcd + kube-apiserver (upstream's harness flags) and the release
# `kubectl-kueue run-controller`, next to the same scenario in virtual time through the
# engine alone. Results: target/perf/<scenario>/summary.yaml, usage.svg, tta.svg.
#
#   scripts/perf.sh baseline [--scale F]       5 cohorts x 6 ClusterQueues, 15,000 Workloads
#   scripts/perf.sh large-scale [--scale F]    10 x 100 ClusterQueues, 50,000 Workloads
#   scripts/perf.sh jobs [--scale F]           1 x 6 ClusterQueues, 3,000 batch/v1 Jobs on kwok
#   scripts/perf.sh deep-queue [--scale F]     one ClusterQueue 10,000 deep, three shallow ones
#   scripts/perf.sh <scenario> --replay-only   the virtual-time replay alone (no cluster)
#   scripts/perf.sh <scenario> --api-floor     no controller: an admitter that writes one status
#                                              per Workload, whatever the quota (the API floor)
#   scripts/perf.sh upstream-baseline <kueue checkout> [generator.yaml]
#                                              upstream's own harness (runner + minimalkueue)
#                                              on the same cached kube-apiserver and etcd
#
# Other flags: --timeout SECONDS (default 1800), --out DIR (default target/perf).
# Needs the cached control plane (scripts/testenv.sh builds it). Never part of scripts/test.sh:
# performance is measured, not pass/fail; quote the machine's load with the figures.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 ]] || usage
scenario=$1
shift

case "$scenario" in
  baseline | large-scale | jobs | deep-queue)
    [[ " $* " == *" --replay-only "* ]] || scripts/testenv.sh >/dev/null
    # The bench profile is the release profile: the controller it starts is
    # target/release/kubectl-kueue.
    exec cargo bench --bench perf -- "$scenario" "$@"
    ;;
  upstream-baseline)
    checkout=${1:-}
    if [[ -z "$checkout" || ! -d "$checkout/test/performance/scheduler" ]]; then
      echo "perf: upstream-baseline needs a kubernetes-sigs/kueue checkout (got '${checkout}'); skipped" >&2
      exit 0
    fi
    config=${2:-test/performance/scheduler/configs/baseline/generator.yaml}
    bins=$(scripts/testenv.sh | tail -n 1)
    out=$PWD/target/perf/upstream-baseline
    mkdir -p "$out"
    (
      cd "$checkout"
      go build -o bin/performance-scheduler-runner test/performance/scheduler/runner/main.go
      go build -o bin/minimalkueue test/performance/scheduler/minimalkueue/main.go
      echo "perf: loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
      KUBEBUILDER_ASSETS=$bins bin/performance-scheduler-runner --o "$out" \
        --crds=config/components/crd/bases --generatorConfig="$config" \
        --minimalKueue=bin/minimalkueue --timeout=30m
      echo "perf: loadavg at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    )
    cat "$out/summary.yaml" "$out/minimalkueue.stats.yaml"
    ;;
  -h | --help) usage ;;
  *) echo "perf: unknown scenario '$scenario'" >&2; usage ;;
esac

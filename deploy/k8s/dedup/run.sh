#!/usr/bin/env bash
# Runs a staged dedup on Kubernetes (docs/dedup.md, "Staged runs"): the
# volumes, the plan, then each stage's indexed Job once the one before
# completed. Usage: deploy/k8s/dedup/run.sh [namespace]. Run it again after
# a failure: the plan is the same, and done tasks exit at once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
namespace=${1:-neardup}
k() { kubectl -n "$namespace" "$@"; }

k apply -k "$here"
for stage in plan signatures buckets verify clusters filter commit; do
  job=neardup-dedup-$stage
  k delete job "$job" --ignore-not-found
  k apply -f "$here/jobs/$stage.yaml"
  until k wait --for=condition=complete "job/$job" --timeout=10s >/dev/null 2>&1; do
    if k wait --for=condition=failed "job/$job" --timeout=1s >/dev/null 2>&1; then
      echo "run.sh: stage $stage failed; see kubectl -n $namespace logs -l job-name=$job" >&2
      exit 1
    fi
  done
  echo "run.sh: stage $stage done"
done

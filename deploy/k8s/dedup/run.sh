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
# ReadWriteMany volumes a class cannot provide stay Pending: say so.
for claim in neardup-dedup-data neardup-dedup-work; do
  if ! k wait --for=jsonpath='{.status.phase}'=Bound "pvc/$claim" --timeout=600s; then
    echo "run.sh: volume $claim is not bound (does its storage class offer ReadWriteMany?)" >&2
    exit 1
  fi
done
for stage in plan signatures buckets verify clusters filter commit; do
  job=neardup-dedup-$stage
  k delete job "$job" --ignore-not-found
  k apply -f "$here/jobs/$stage.yaml"
  while true; do
    # "<succeeded> <conditions>"; kubectl's errors are shown and stop the run.
    state=$(k get job "$job" -o jsonpath='{.status.succeeded} {.status.conditions[?(@.status=="True")].type}')
    case "$state" in
      *Complete*) break ;;
      *Failed*)
        echo "run.sh: stage $stage failed; see kubectl -n $namespace logs -l job-name=$job" >&2
        exit 1 ;;
    esac
    echo "run.sh: stage $stage: ${state%% *} tasks done"
    sleep 10
  done
  echo "run.sh: stage $stage done"
done

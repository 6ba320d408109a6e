#!/bin/bash
# Seconds from starting neardupd on an existing store to its "serving:" log
# line, and the CPU it used by then. Run by hand (as root for "cold", which
# drops the page cache first):
#   bench/restart_time.sh build/release/server/neardupd /big/nd10m [cold]
# The log is watched instead of asking `neardup health`: a client process
# every 50 ms took ~40 % of a core from the rebuild it timed.
set -euo pipefail
neardupd=$1
data_dir=$2
if [ "${3:-}" = cold ]; then
  sync
  echo 3 > /proc/sys/vm/drop_caches
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s.%N)
"$neardupd" --plaintext --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
  --data-dir "$data_dir" > "$log" 2>&1 &
pid=$!
until grep -q '] serving: ' "$log"; do
  if ! kill -0 "$pid" 2> /dev/null; then
    echo "neardupd exited:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.1
done
end=$(date +%s.%N)
read -r -a stat < "/proc/$pid/stat"
ticks=$(getconf CLK_TCK)
echo "to SERVING: $(echo "$end - $start" | bc) s;" \
  "cpu user $(echo "scale=2; ${stat[13]} / $ticks" | bc) s," \
  "system $(echo "scale=2; ${stat[14]} / $ticks" | bc) s"
kill -TERM "$pid"
wait "$pid" || true

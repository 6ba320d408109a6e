#!/usr/bin/python3
"""One neardupd node grown to 10 million documents (#35), run by hand.

Ingests --docs documents of --words generated words (250: ~2.2 KB) with
the default exact collection, one --step at a time, through
bench/load_generator (client on the same machine). After the steps named by
--report-at it runs --query-seconds of async queries (near copies of stored
documents), and at the end it restarts neardupd on the same store and
queries again for the first minute. Every figure is printed as it is
measured and all of them are written as JSON to --out:

  ingest rate per step; query QPS, p50 and p99; candidates and evidence
  reads per query (Prometheus histograms, as quantiles) and evidence bytes;
  pending compaction bytes and write stalls; server RSS, index bytes per
  document and store bytes per document; time to SERVING after a restart.

  /usr/bin/python3 bench/ten_million.py --data-dir /big/nd10m \\
      --out /tmp/ten_million.json     # ~25 GB of store, about an hour

A smaller run checks the harness: --docs 200000 --step 100000 --report-at
100000,200000 --query-seconds 5. With --shared-every K every K-th document
begins with the same --shared-words paragraph (boilerplate: the hot band
keys of #35 item 3).
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(metrics_port):
    """Prometheus text -> {sample name with labels: value}."""
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        try:
            samples[name] = float(value)
        except ValueError:
            pass
    return samples


def histogram(samples, name):
    """{upper bound: cumulative count}, plus sum and count."""
    buckets = {}
    prefix = name + "_bucket{le=\""
    for key, value in samples.items():
        if key.startswith(prefix):
            bound = key[len(prefix):-2]
            buckets[float("inf") if bound == "+Inf" else float(bound)] = value
    return buckets, samples.get(name + "_sum", 0), samples.get(
        name + "_count", 0)


def quantiles(before, after, name, qs=(0.5, 0.9, 0.99)):
    """Quantiles of a histogram's observations between two scrapes, as the
    upper bound of the bucket that holds them; and the mean."""
    b0, s0, c0 = histogram(before, name)
    b1, s1, c1 = histogram(after, name)
    count = c1 - c0
    if count <= 0:
        return {"count": 0}
    out = {"count": count, "mean": round((s1 - s0) / count, 2)}
    bounds = sorted(b1)
    for q in qs:
        for bound in bounds:
            if b1[bound] - b0.get(bound, 0) >= q * count:
                out[f"p{round(q * 100)}"] = bound
                break
    return out


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def dir_bytes(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except FileNotFoundError:
                pass  # a compaction removed it meanwhile
    return total


class Server:
    def __init__(self, args, data_dir):
        self.args = args
        self.data_dir = data_dir
        self.port = free_port()
        self.metrics_port = free_port()
        self.process = None

    def start(self):
        """Starts neardupd and returns the seconds until it is SERVING.

        Until neardupd logs that it serves, the log is watched rather than
        asked with `neardup health`: a client process started every 50 ms
        took ~40 % of a core from the rebuild it timed (2 s of a 17 s
        restart at 10M)."""
        log_path = os.path.join(self.args.work, "neardupd.log")
        log_from = os.path.getsize(log_path) if os.path.exists(log_path) else 0
        started = time.monotonic()
        with open(log_path, "ab") as log:
            self.process = subprocess.Popen(
                [self.args.neardupd, "--plaintext", "--listen",
                 f"127.0.0.1:{self.port}", "--metrics-listen",
                 f"127.0.0.1:{self.metrics_port}", "--data-dir",
                 self.data_dir, "--block-cache-bytes",
                 str(self.args.block_cache_bytes)] +
                # (only when set: builds before it refuse the flag)
                (["--hot-band-rows", str(self.args.hot_band_rows)]
                 if self.args.hot_band_rows else []),
                stdout=log, stderr=log)
        while True:
            if self.process.poll() is not None:
                sys.exit(f"neardupd exited with {self.process.returncode}; "
                         f"see {self.args.work}/neardupd.log")
            with open(log_path, "rb") as log:
                log.seek(log_from)
                if b"] serving: " not in log.read():
                    time.sleep(0.05)
                    continue
            health = subprocess.run(
                [self.args.neardup, "health", "--server", self.address(),
                 "--timeout", "1"], capture_output=True)
            if health.returncode == 0:
                return time.monotonic() - started
            time.sleep(0.05)

    def address(self):
        return f"127.0.0.1:{self.port}"

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=600)


def load_generator(args, server, *extra):
    command = [args.load_generator, "--server", server.address(),
               "--collection", "ten_million", "--words", str(args.words),
               "--shared-words", str(args.shared_words), "--shared-every",
               str(args.shared_every), "--json", *extra]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout}\n"
                 f"{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def query_phase(args, server, documents, seconds):
    before = scrape(server.metrics_port)
    figures = load_generator(
        args, server, "--keep", "--docs", "0", "--probe-docs",
        str(documents), "--queries", "100000000", "--max-seconds",
        str(seconds), "--query-mode", "async", "--clients",
        str(args.query_clients), "--max-probes", str(args.max_probes))
    after = scrape(server.metrics_port)
    queries = figures["queries"]
    evidence_bytes = (after.get("neardup_query_evidence_bytes_total", 0) -
                      before.get("neardup_query_evidence_bytes_total", 0))
    return {
        "qps": figures["qps"],
        "p50_ms": figures["p50_ms"],
        "p99_ms": figures["p99_ms"],
        "queries": queries,
        "found_their_source": figures["found"] / max(queries, 1),
        "errors": figures["errors"],
        "candidates": quantiles(before, after, "neardup_query_candidates"),
        "evidence_reads": quantiles(before, after,
                                    "neardup_query_evidence_reads"),
        "evidence_bytes_per_query": round(evidence_bytes / max(queries, 1)),
    }


def state(server, documents):
    samples = scrape(server.metrics_port)
    index = samples.get(
        'neardup_index_memory_bytes{collection="ten_million"}', 0)
    store = dir_bytes(server.data_dir)
    return {
        "documents": documents,
        "rss_bytes": rss_bytes(server.process.pid),
        "index_bytes_per_document": round(index / max(documents, 1), 1),
        "store_bytes": store,
        "store_bytes_per_document": round(store / max(documents, 1), 1),
        "pending_compaction_bytes": samples.get(
            "neardup_store_pending_compaction_bytes", 0),
        "write_stall_seconds": samples.get(
            "neardup_store_write_stall_seconds_total", 0),
        "write_slowdowns": samples.get(
            'neardup_store_write_stalls_total{kind="slowdown"}', 0),
        "write_stops": samples.get(
            'neardup_store_write_stalls_total{kind="stop"}', 0),
    }


def say(label, value):
    print(f"{label}: {json.dumps(value)}", flush=True)


def queries_only(args):
    server = Server(args, args.data_dir)
    try:
        server.start()
        query_phase(args, server, args.docs, 5)  # warm-up
        q = query_phase(args, server, args.docs, args.query_seconds)
        q["documents"] = args.docs
        say("query", q)
    finally:
        if server.process and server.process.poll() is None:
            server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    build = os.path.join(ROOT, "build", "release")
    parser.add_argument("--neardupd",
                        default=os.path.join(build, "server", "neardupd"))
    parser.add_argument("--neardup",
                        default=os.path.join(build, "client", "neardup"))
    parser.add_argument("--load-generator", default=os.path.join(
        build, "bench", "load_generator"))
    parser.add_argument("--data-dir", required=True,
                        help="an empty or absent directory for the store")
    parser.add_argument("--out", default="/tmp/ten_million.json")
    parser.add_argument("--docs", type=int, default=10_000_000)
    parser.add_argument("--step", type=int, default=1_000_000)
    parser.add_argument("--report-at", default="1000000,5000000,10000000",
                        help="document counts after which queries run")
    parser.add_argument("--words", type=int, default=250)
    parser.add_argument("--shared-words", type=int, default=0)
    parser.add_argument("--shared-every", type=int, default=0)
    parser.add_argument("--ingest-clients", type=int, default=2)
    parser.add_argument("--query-clients", type=int, default=16,
                        help="async calls kept in flight")
    parser.add_argument("--query-seconds", type=float, default=30)
    parser.add_argument("--max-probes", type=int, default=100000)
    parser.add_argument("--block-cache-bytes", type=int, default=256 << 20)
    parser.add_argument("--hot-band-rows", type=int, default=0,
                        help="neardupd's --hot-band-rows (0: off)")
    parser.add_argument("--keep-store", action="store_true",
                        help="leave the store behind at the end")
    parser.add_argument("--queries-only", action="store_true",
                        help="only query a store an earlier run kept "
                        "(--keep-store) with its --docs, --words and "
                        "--shared-*: one phase of --query-seconds, after a "
                        "warm-up of 5 s; to compare two builds on one store")
    args = parser.parse_args()
    args.work = os.path.dirname(os.path.abspath(args.out))
    if args.queries_only:
        queries_only(args)
        return
    if os.path.exists(args.data_dir) and os.listdir(args.data_dir):
        sys.exit(f"--data-dir {args.data_dir} is not empty")
    report_at = {int(n) for n in args.report_at.split(",") if n}

    results = {"args": vars(args), "steps": [], "queries": [],
               "states": []}
    server = Server(args, args.data_dir)
    results["first_start_seconds"] = server.start()
    created = False
    documents = 0
    try:
        while documents < args.docs:
            count = min(args.step, args.docs - documents)
            extra = ["--docs", str(count), "--first-doc", str(documents),
                     "--queries", "0", "--clients", str(args.ingest_clients)]
            if created:
                extra.append("--keep-collection")
            figures = load_generator(args, server, *extra)
            created = True
            documents += count
            step = {"documents": documents,
                    "docs_per_second": figures["ingest_docs_per_second"]}
            results["steps"].append(step)
            say("ingest", step)
            if documents in report_at:
                st = state(server, documents)
                results["states"].append(st)
                say("state", st)
                q = query_phase(args, server, documents, args.query_seconds)
                q["documents"] = documents
                results["queries"].append(q)
                say("query", q)
            with open(args.out, "w") as f:
                json.dump(results, f, indent=1)
        server.stop()
        restarted = server = Server(args, args.data_dir)
        results["restart_to_serving_seconds"] = restarted.start()
        rebuild = scrape(restarted.metrics_port)
        results["rebuild_seconds"] = rebuild.get(
            'neardup_index_rebuild_seconds{collection="ten_million"}')
        say("restart", {"to_serving_seconds":
                        results["restart_to_serving_seconds"],
                        "rebuild_seconds": results["rebuild_seconds"]})
        q = query_phase(args, restarted, documents, 60)
        q["documents"] = documents
        q["after_restart"] = True
        results["queries"].append(q)
        say("query after restart (first minute)", q)
        st = state(restarted, documents)
        st["after_restart"] = True
        results["states"].append(st)
        say("state after restart", st)
        restarted.stop()
    finally:
        if server.process and server.process.poll() is None:
            server.stop()
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
        if not args.keep_store:
            shutil.rmtree(args.data_dir, ignore_errors=True)
    print(f"figures in {args.out}")


if __name__ == "__main__":
    main()

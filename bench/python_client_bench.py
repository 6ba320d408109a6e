#!/usr/bin/python3
"""neardup's Python client against the C++ load generator, one neardupd.

Starts a neardupd (temp folder, free loopback port) and, round by round,
ingests --docs documents of --words words into a fresh collection and sends
--queries probes, once with bench/load_generator (C++; BulkUpsert streams,
BatchQuery streams, --clients of each) and once with neardup.Client
(upsert_many, query_many: one stream each) and neardup.AsyncClient
(--clients query_many streams at once). Both sides send the same documents
and probes (tests/support/corpus.h's GeneratedText and NearCopy, ported;
checked against the C++ side's collection), and both count the probes
whose source document is among the matches. Prints docs/s and QPS per round and
the Python/C++ ratios. Run by hand:

  PYTHONPATH=build/release/python bench/python_client_bench.py \\
      --neardupd build/release/server/neardupd \\
      --load-generator build/release/bench/load_generator
"""

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


WORDS = ["river", "stone", "market", "quiet", "signal", "harbor", "winter",
         "ledger", "copper", "garden", "engine", "lantern", "meadow", "orbit",
         "parcel", "velvet", "tunnel", "anchor", "bridge", "cobalt", "falcon",
         "glacier", "island", "jungle", "kettle", "lemon", "mirror", "nectar"]
MASK = 2**64 - 1


def generated_text(seed, words):
    """tests/support/corpus.h's GeneratedText, which the load generator
    ingests: the same documents on both sides."""
    out = []
    state = (seed * 0x9E3779B97F4A7C15 + 1) & MASK
    for _ in range(words):
        state = (state * 6364136223846793005 + 1442695040888963407) & MASK
        out.append(f"{WORDS[(state >> 33) % 28]}{(state >> 40) % 50}")
    return " ".join(out)


def near_copy(text, every=100):
    """corpus.h's NearCopy: the load generator's probes."""
    words = text.split(" ")
    for i in range(every // 2, len(words), every):
        words[i] = "edited"
    return " ".join(words)


def cpp_round(args, server, collection):
    run = subprocess.run(
        [args.load_generator, "--server", server, "--collection", collection,
         "--docs", str(args.docs), "--queries", str(args.queries),
         "--words", str(args.words), "--clients", str(args.clients),
         "--query-mode", "stream"], capture_output=True, text=True,
        check=True)
    ingest = float(re.search(r"= ([\d.]+) docs/s", run.stdout).group(1))
    qps = float(re.search(r"= ([\d.]+) QPS", run.stdout).group(1))
    found = int(re.search(r"(\d+) found their source", run.stdout).group(1))
    return ingest, qps, found


def python_round(neardup, args, server, collection, texts, probes, sources):
    with neardup.Client(server) as client:
        client.create_collection(collection)
        start = time.perf_counter()
        failed = sum(r.code != 0 for r in client.upsert_many(
            collection, ({"id": f"d{i}", "text": t}
                         for i, t in enumerate(texts)), batch_size=256))
        ingest = len(texts) / (time.perf_counter() - start)
        if failed:
            sys.exit(f"{failed} upserts failed")
        start = time.perf_counter()
        found = sum(any(m.id == source for m in a.matches)
                    for a, source in zip(client.query_many(collection,
                                                           probes), sources))
        qps = len(probes) / (time.perf_counter() - start)

    async def concurrent():
        async with neardup.AsyncClient(server) as client:
            parts = [probes[i::args.clients] for i in range(args.clients)]

            part_sources = [sources[i::args.clients]
                            for i in range(args.clients)]

            async def one(part, expected):
                answers = [a async for a in
                           client.query_many(collection, part)]
                return sum(any(m.id == source for m in a.matches)
                           for a, source in zip(answers, expected))
            return sum(await asyncio.gather(
                *(one(p, e) for p, e in zip(parts, part_sources))))
    start = time.perf_counter()
    found_async = asyncio.run(concurrent())
    async_qps = len(probes) / (time.perf_counter() - start)
    return ingest, qps, async_qps, found, found_async


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--neardupd", required=True)
    parser.add_argument("--load-generator", required=True)
    parser.add_argument("--docs", type=int, default=50000)
    parser.add_argument("--queries", type=int, default=20000)
    parser.add_argument("--words", type=int, default=250)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import neardup
    texts = [generated_text(i, args.words) for i in range(args.docs)]
    count = min(args.queries, args.docs)
    # As the load generator: probe i is a near copy of document i*7919 mod n.
    sources = [f"d{(i * 7919) % len(texts)}" for i in range(count)]
    probes = [near_copy(texts[(i * 7919) % len(texts)]) for i in range(count)]
    with tempfile.TemporaryDirectory() as work:
        server = f"127.0.0.1:{free_port()}"
        log = open(os.path.join(work, "neardupd.log"), "wb")
        process = subprocess.Popen(
            [args.neardupd, "--plaintext", "--listen", server,
             "--metrics-listen", "off", "--data-dir",
             os.path.join(work, "data")], stdout=log, stderr=log)
        try:
            with neardup.Client(server, max_attempts=50) as client:
                client.health()
            rows = []
            for r in range(args.rounds):
                cpp = cpp_round(args, server, f"cpp{r}")
                with neardup.Client(server) as client:  # the same corpus?
                    best = client.query(f"cpp{r}", text=texts[5]).matches[0]
                    if best.id != "d5" or best.similarity != 1.0:
                        sys.exit("this script's documents are not the load "
                                 "generator's (tests/support/corpus.h)")
                py = python_round(neardup, args, server, f"py{r}", texts,
                                  probes, sources)
                rows.append((cpp, py))
                print(f"round {r + 1}: C++ ingest {cpp[0]:8.0f} docs/s, "
                      f"stream queries {cpp[1]:7.0f} QPS | Python ingest "
                      f"{py[0]:8.0f} docs/s, query_many {py[1]:7.0f} QPS, "
                      f"async x{args.clients} {py[2]:7.0f} QPS; found their "
                      f"source: C++ {cpp[2]}, Python {py[3]} and {py[4]} of "
                      f"{len(probes)}")
            for name, py_i, cpp_i in (("ingest", 0, 0),
                                      ("query_many (1 stream)", 1, 1),
                                      (f"async ({args.clients} streams)", 2,
                                       1)):
                ratios = [py[py_i] / cpp[cpp_i] for cpp, py in rows]
                print(f"Python/C++ {name}: "
                      + " ".join(f"{x:.2f}" for x in ratios)
                      + f"  median {statistics.median(ratios):.2f}")
        finally:
            process.terminate()
            process.wait(timeout=60)
            log.close()


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""neardup.dedup (Python, in process) against `neardup dedup` (the CLI) on
the same records, side by side.

The corpus is JSON lines of generated words (one in four records an
edited copy of an earlier one), or --input. Each round times, in turn:

  cli:     neardup dedup IN -o OUT (file to file, the CLI's own reader);
  memory:  list(neardup.dedup(records)) over the records already loaded
           as dicts (what a user holding a list or a datasets.Dataset
           pays);
  file:    the Python user's file-to-file path: json.loads per line,
           neardup.dedup, json.dumps of each kept record to OUT.

Rounds alternate the three, and the figures are per-round ratios of
Python time to CLI time (the machine drifts between minutes). Every round
checks that all three keep the same records.

  PYTHONPATH=build/release/python bench/python_dedup_bench.py \\
      --neardup build/release/client/neardup --docs 100000 --rounds 3
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import tempfile
import time

import neardup


def write_corpus(path, n, words, seed):
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(30000)]
    texts = []
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            if i >= 10 and rng.random() < 0.25:
                tokens = texts[rng.randrange(i)].split()
                for _ in range(rng.randrange(1, 8)):
                    tokens[rng.randrange(len(tokens))] = rng.choice(vocab)
            else:
                tokens = [rng.choice(vocab) for _ in range(words)]
            texts.append(" ".join(tokens))
            out.write(json.dumps({"id": i, "text": texts[-1]}) + "\n")


def ids_of(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["id"] for line in f]


def run_cli(args, source, out):
    start = time.perf_counter()
    subprocess.run([args.neardup, "dedup", source, "-o", out,
                    "--threads", str(args.threads), "--threshold",
                    str(args.threshold), "--no-progress"],
                   check=True, capture_output=True)
    return time.perf_counter() - start, ids_of(out)


def run_memory(args, records):
    start = time.perf_counter()
    kept = list(neardup.dedup(records, threads=args.threads,
                              threshold=args.threshold))
    return time.perf_counter() - start, [r["id"] for r in kept]


def run_file(args, source, out):
    start = time.perf_counter()
    with open(source, encoding="utf-8") as f, \
            open(out, "w", encoding="utf-8") as o:
        for record in neardup.dedup((json.loads(line) for line in f),
                                    threads=args.threads,
                                    threshold=args.threshold):
            o.write(json.dumps(record) + "\n")
    return time.perf_counter() - start, ids_of(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--neardup", required=True, help="the CLI binary")
    parser.add_argument("--input", help="a JSONL file with a text field "
                        "and an id (default: a generated corpus)")
    parser.add_argument("--docs", type=int, default=100000)
    parser.add_argument("--words", type=int, default=250)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--threshold", type=float, default=0.85)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        source = args.input or os.path.join(tmp, "in.jsonl")
        if not args.input:
            write_corpus(source, args.docs, args.words, seed=11)
        with open(source, encoding="utf-8") as f:
            records = [json.loads(line) for line in f]
        size = os.path.getsize(source)
        print(f"{len(records)} records, {size / 1e6:.1f} MB, "
              f"{args.threads} threads, threshold {args.threshold}")
        ratios = {"memory": [], "file": []}
        for round_ in range(args.rounds):
            cli, cli_ids = run_cli(args, source, os.path.join(tmp, "c.jsonl"))
            memory, memory_ids = run_memory(args, records)
            file, file_ids = run_file(args, source,
                                      os.path.join(tmp, "p.jsonl"))
            if not cli_ids == memory_ids == file_ids:
                raise SystemExit("the three runs kept different records")
            ratios["memory"].append(memory / cli)
            ratios["file"].append(file / cli)
            print(f"round {round_ + 1}: cli {cli:.2f} s "
                  f"({len(records) / cli:,.0f} docs/s), memory "
                  f"{memory:.2f} s ({memory / cli:.2f}x), file {file:.2f} s "
                  f"({file / cli:.2f}x); kept {len(cli_ids)}")
        for name, values in ratios.items():
            print(f"{name}: Python time / CLI time, median "
                  f"{statistics.median(values):.2f} (rounds: "
                  f"{', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Staged dedup against one process, side by side (bench/README.md).

Usage: staged_dedup_bench.py --neardup BIN [--docs 400000] [--files 16]
                             [--tasks 8] [--memory 64M] [--dir DIR]

Makes a corpus of `--docs` documents of 120 words (a third of them edited
copies of earlier ones, 5% exact copies) in `--files` JSONL files, then runs
`neardup dedup` on it in one process and as a staged run of `--tasks` tasks
with `--memory` each (local runner, --parallel 2), alternately, twice each.
Prints wall times, the one process's peak RSS, each stage's wall time and
largest task RSS, bytes spilled, and checks that both wrote the same bytes.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def make_corpus(directory, docs, files):
    rng = random.Random(7)
    vocabulary = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                          for _ in range(rng.randint(3, 9)))
                  for _ in range(50000)]
    texts = []
    paths = [os.path.join(directory, f"in-{f:03d}.jsonl") for f in range(files)]
    outs = [open(p, "w") for p in paths]
    for i in range(docs):
        roll = rng.random()
        if texts and roll < 0.05:
            text = texts[rng.randrange(len(texts))]
        elif texts and roll < 0.33:
            words = texts[rng.randrange(len(texts))].split()
            for _ in range(rng.randint(1, 6)):
                words[rng.randrange(len(words))] = rng.choice(vocabulary)
            text = " ".join(words)
        else:
            text = " ".join(rng.choice(vocabulary) for _ in range(120))
        # Keep a window of recent texts to copy from (memory of the script).
        texts.append(text)
        if len(texts) > 20000:
            texts.pop(rng.randrange(len(texts)))
        outs[i * files // docs].write(json.dumps({"text": text}) + "\n")
    for out in outs:
        out.close()
    return paths


def timed(command):
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command[:3])}...: {result.stdout}{result.stderr}")
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--neardup", required=True)
    parser.add_argument("--docs", type=int, default=400000)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--memory", default="64M")
    parser.add_argument("--dir")
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="staged-bench-")
    os.makedirs(directory, exist_ok=True)
    inputs = make_corpus(directory, args.docs, args.files)
    size = sum(os.path.getsize(p) for p in inputs)
    print(f"corpus: {args.docs} documents, {size / 1e6:.0f} MB in "
          f"{args.files} files")
    common = [args.neardup, "dedup", *inputs, "--no-progress"]
    one_stats = os.path.join(directory, "one.stats")
    work = os.path.join(directory, "work")
    runs = {"one": [], "staged": []}
    for round_ in range(2):
        runs["one"].append(timed(common + [
            "-o", os.path.join(directory, "one.jsonl"), "--stats", one_stats]))
        shutil.rmtree(work, ignore_errors=True)
        runs["staged"].append(timed(common + [
            "-o", os.path.join(directory, "staged.jsonl"), "--tasks",
            str(args.tasks), "--memory", args.memory, "--parallel", "2",
            "--work-dir", work]))
    with open(one_stats) as f:
        one = json.load(f)
    same = open(os.path.join(directory, "one.jsonl"), "rb").read() == \
        open(os.path.join(directory, "staged.jsonl"), "rb").read()
    print(f"one process: {runs['one'][0]:.1f} / {runs['one'][1]:.1f} s, "
          f"peak RSS {one['peak_rss_bytes'] / 2**20:.0f} MiB, "
          f"{one['unique']} kept of {one['total']}")
    print(f"staged, {args.tasks} tasks, --memory {args.memory}, 2 at once: "
          f"{runs['staged'][0]:.1f} / {runs['staged'][1]:.1f} s "
          f"({runs['staged'][0] / runs['one'][0]:.2f}x / "
          f"{runs['staged'][1] / runs['one'][1]:.2f}x); same output: {same}")
    spilled = 0
    print("stage        tasks  wall s  max task RSS MiB  spilled MB")
    for stage in ("signatures", "buckets", "verify", "clusters", "filter",
                  "commit"):
        manifests = []
        stage_dir = os.path.join(work, stage)
        for name in sorted(os.listdir(stage_dir)):
            if name.endswith(".json"):
                with open(os.path.join(stage_dir, name)) as f:
                    manifests.append(json.load(f))
        start = min(m["started_unix_micros"] for m in manifests)
        end = max(m["started_unix_micros"] + m["seconds"] * 1e6
                  for m in manifests)
        rss = max(m["peak_rss_bytes"] for m in manifests)
        spill = sum(m.get("spilled_bytes", 0) for m in manifests)
        spilled += spill
        print(f"{stage:12} {len(manifests):5}  {(end - start) / 1e6:6.1f}  "
              f"{rss / 2**20:16.0f}  {spill / 1e6:10.0f}")
    work_bytes = sum(os.path.getsize(os.path.join(d, f))
                     for d, _, fs in os.walk(work) for f in fs)
    print(f"spilled {spilled / 1e6:.0f} MB; work directory "
          f"{work_bytes / 1e6:.0f} MB")
    if not same:
        sys.exit("the outputs differ")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Staged dedup against one process, side by side (bench/README.md).

Usage: staged_dedup_bench.py --neardup BIN [--docs 400000] [--files 16]
                             [--tasks 8] [--memory 64M] [--dir DIR]
                             [--corpora ../shared/data] [--words 120]
                             [--rounds 2] [--rss-cap-gib 20]
                             [--reuse-corpus] [--use-files K]

Makes a corpus of `--docs` documents of `--words` words (a third of them
edited copies of earlier ones of the same file, 5% exact copies) in
`--files` JSONL files,
then runs `neardup dedup` on it in one process and as a staged run of
`--tasks` tasks with `--memory` each (local runner, --parallel 2),
alternately, `--rounds` times each. Words come from a made-up vocabulary,
or with `--corpora` from the Reuters and 20 Newsgroups texts there (a
document: chunks of 50 consecutive words from random places). Prints wall
times, the one process's peak RSS (it is killed past `--rss-cap-gib`), each
stage's wall time and largest task RSS, bytes spilled, and checks that both
wrote the same bytes (by digest; each output is removed once digested).
`--reuse-corpus` takes the corpus already in `--dir`, `--use-files K` only
its first K files.
"""

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def corpus_words(corpora):
    words = []
    for name in ("reuters21578.jsonl", "20news_bydate.jsonl"):
        with open(os.path.join(corpora, name)) as f:
            for line in f:
                words.extend(json.loads(line)["text"].split())
    return words


def make_file(job):
    path, seed, count, words_per_doc, corpora = job
    rng = random.Random(seed)
    if corpora:
        source = corpus_words(corpora)
        vocabulary = source

        def fresh():
            parts = []
            for _ in range(max(1, words_per_doc // 50)):
                at = rng.randrange(len(source) - 50)
                parts.extend(source[at:at + 50])
            return " ".join(parts[:words_per_doc])
    else:
        vocabulary = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                              for _ in range(rng.randint(3, 9)))
                      for _ in range(50000)]

        def fresh():
            return " ".join(rng.choice(vocabulary)
                            for _ in range(words_per_doc))
    texts = []
    with open(path, "w") as out:
        for _ in range(count):
            roll = rng.random()
            if texts and roll < 0.05:
                text = texts[rng.randrange(len(texts))]
            elif texts and roll < 0.33:
                words = texts[rng.randrange(len(texts))].split()
                for _ in range(rng.randint(1, 6)):
                    words[rng.randrange(len(words))] = rng.choice(vocabulary)
                text = " ".join(words)
            else:
                text = fresh()
            # Keep a window of recent texts to copy from.
            texts.append(text)
            if len(texts) > 20000:
                texts.pop(rng.randrange(len(texts)))
            out.write(json.dumps({"text": text}) + "\n")
    return path


def make_corpus(directory, docs, files, words, corpora):
    jobs = [(os.path.join(directory, f"in-{f:03d}.jsonl"), 7 + f,
             (f + 1) * docs // files - f * docs // files, words, corpora)
            for f in range(files)]
    with multiprocessing.Pool(2) as pool:
        return pool.map(make_file, jobs)


def digest_and_remove(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    os.remove(path)
    return h.hexdigest()


def timed(command, rss_cap=None):
    """Wall seconds; None when the process passed `rss_cap` bytes of RSS."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    capped = False
    while process.poll() is None:
        time.sleep(0.5)
        if rss_cap is None:
            continue
        try:
            with open(f"/proc/{process.pid}/status") as f:
                rss = next(int(line.split()[1]) * 1024 for line in f
                           if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
        if rss > rss_cap:
            process.kill()
            capped = True
    output = process.stdout.read()
    elapsed = time.monotonic() - start
    if capped:
        print(f"one process passed {rss_cap / 2**30:.0f} GiB of RSS after "
              f"{elapsed:.0f} s and was stopped")
        return None
    if process.returncode != 0:
        sys.exit(f"{' '.join(command[:3])}...: {output}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--neardup", required=True)
    parser.add_argument("--docs", type=int, default=400000)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--memory", default="64M")
    parser.add_argument("--dir")
    parser.add_argument("--corpora")
    parser.add_argument("--words", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rss-cap-gib", type=float, default=20)
    parser.add_argument("--reuse-corpus", action="store_true")
    parser.add_argument("--use-files", type=int)
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="staged-bench-")
    os.makedirs(directory, exist_ok=True)
    made = time.monotonic()
    if args.reuse_corpus:
        inputs = sorted(os.path.join(directory, name)
                        for name in os.listdir(directory)
                        if name.startswith("in-") and name.endswith(".jsonl"))
    else:
        inputs = make_corpus(directory, args.docs, args.files, args.words,
                             args.corpora)
        print(f"made the corpus in {time.monotonic() - made:.0f} s")
    inputs = inputs[:args.use_files]
    args.files = len(inputs)
    args.docs = sum(1 for path in inputs for _ in open(path, "rb"))
    size = sum(os.path.getsize(p) for p in inputs)
    print(f"corpus: {args.docs} documents, {size / 1e6:.0f} MB in "
          f"{args.files} files")
    common = [args.neardup, "dedup", *inputs, "--no-progress"]
    one_stats = os.path.join(directory, "one.stats")
    work = os.path.join(directory, "work")
    runs = {"one": [], "staged": []}
    digests = {"one": set(), "staged": set()}
    one = None
    for round_ in range(args.rounds):
        output = os.path.join(directory, "one.jsonl")
        runs["one"].append(timed(common + ["-o", output, "--stats", one_stats],
                                 rss_cap=args.rss_cap_gib * 2**30))
        if runs["one"][-1] is not None:
            digests["one"].add(digest_and_remove(output))
            with open(one_stats) as f:
                one = json.load(f)
        shutil.rmtree(work, ignore_errors=True)
        output = os.path.join(directory, "staged.jsonl")
        runs["staged"].append(timed(common + [
            "-o", output, "--tasks", str(args.tasks), "--memory", args.memory,
            "--parallel", "2", "--work-dir", work]))
        digests["staged"].add(digest_and_remove(output))
    show = lambda times: " / ".join(
        "stopped" if t is None else f"{t:.1f}" for t in times)
    if one:
        print(f"one process: {show(runs['one'])} s, peak RSS "
              f"{one['peak_rss_bytes'] / 2**20:.0f} MiB, "
              f"{one['unique']} kept of {one['total']}")
    else:
        print(f"one process: {show(runs['one'])}")
    same = len(digests["staged"]) == 1 and (
        not digests["one"] or digests["one"] == digests["staged"])
    print(f"staged, {args.tasks} tasks, --memory {args.memory}, 2 at once: "
          f"{show(runs['staged'])} s; same output: {same}")
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

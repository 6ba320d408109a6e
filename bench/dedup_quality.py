#!/usr/bin/env python3
"""Quality and throughput of `neardup dedup` (run by hand, not in the suite).

1. Clough & Stevenson plagiarism corpus: share of `cut` (and light/heavy/non)
   answers that end up in the same cluster as their source, per threshold.
2. A generated near-duplicate set with exact Jaccard truth: Reuters texts
   reduced to lowercase letter-only words (so neardup's tokenizer and this
   script see the same 5-word shingles), each with 4 variants made by random
   word edits. Precision and recall at threshold 0.8 for each --verification mode.
3. End-to-end throughput on Reuters-21578 + 20 Newsgroups with 2 threads
   for each algorithm: docs/s, MB/s, peak RSS.

  python3 bench/dedup_quality.py [--bin build/release/client/neardup]
      [--data ../shared/data] [--bases 2000] [--skip-throughput]
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

THRESHOLD = 0.8
SHINGLE = 5


def run_dedup(binary, inputs, output, extra):
    cmd = [binary, "dedup", *inputs, "-o", output, "--no-progress", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
    return proc


def read_clusters(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def read_json(path):
    with open(path) as f:
        return json.load(f)


# --- 1. Clough -------------------------------------------------------------

def clough(binary, data, work):
    docs_path = os.path.join(data, "clough_plagiarism_docs.jsonl")
    with open(docs_path) as f:
        ids = [json.loads(line)["id"] for line in f]
    with open(os.path.join(data, "clough_plagiarism_pairs.jsonl")) as f:
        pairs = [json.loads(line) for line in f]
    print("## Clough plagiarism corpus: answers clustered with their source")
    print("(--verification exact, 5-word shingles; share of pairs per category)\n")
    print("| threshold | cut | light | heavy | non |")
    print("| --- | --- | --- | --- | --- |")
    for threshold in (0.05, 0.1, 0.2, 0.3, 0.5, 0.8):
        clusters_path = os.path.join(work, "clough_clusters.jsonl")
        run_dedup(binary, [docs_path], os.path.join(work, "clough_out.jsonl"),
                  ["--threshold", str(threshold), "--verification", "exact",
                   "--clusters", clusters_path])
        cluster_of = {}
        for c in read_clusters(clusters_path):
            for m in c["members"]:
                cluster_of[ids[m]] = c["representative"]
        share = {}
        for category in ("cut", "light", "heavy", "non"):
            chosen = [p for p in pairs if p["category"] == category]
            together = sum(
                1 for p in chosen
                if p["a"] in cluster_of and cluster_of[p["a"]] == cluster_of.get(p["b"]))
            share[category] = f"{together}/{len(chosen)}"
        print(f"| {threshold} | {share['cut']} | {share['light']} | "
              f"{share['heavy']} | {share['non']} |")
    print()


# --- 2. Generated near-duplicates -------------------------------------------

def shingles(words):
    if len(words) < SHINGLE:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def jaccard(a, b):
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def edit(words, rate, rng, vocabulary):
    out = []
    for w in words:
        r = rng.random()
        if r < rate / 3:
            continue  # delete
        if r < 2 * rate / 3:
            out.append(rng.choice(vocabulary))  # substitute
            continue
        out.append(w)
        if r < rate:
            out.append(rng.choice(vocabulary))  # insert
    return out


def generate(data, n_bases, seed=5):
    rng = random.Random(seed)
    bases, seen_shingles = [], {}
    with open(os.path.join(data, "reuters21578.jsonl")) as f:
        for line in f:
            words = re.findall(r"[a-z]+", json.loads(line)["text"].lower())
            if len(words) < 80:
                continue
            words = words[:400]
            s = shingles(words)
            # Skip texts that already overlap a chosen base (Reuters has its
            # own duplicates): every base is then unrelated to the others.
            if any(seen_shingles.get(x) is not None for x in s):
                continue
            for x in s:
                seen_shingles[x] = len(bases)
            bases.append(words)
            if len(bases) == n_bases:
                break
    vocabulary = sorted({w for b in bases for w in b})
    docs, truth = [], []  # truth: (base index, variant index, J)
    for words in bases:
        base_index = len(docs)
        docs.append(words)
        for _ in range(4):
            rate = rng.uniform(0.0, 0.06)
            variant = edit(words, rate, rng, vocabulary)
            truth.append((base_index, len(docs)))
            docs.append(variant)
    sets = [shingles(d) for d in docs]
    truth = [(b, v, jaccard(sets[b], sets[v])) for b, v in truth]
    return docs, sets, truth, len(bases)


def generated(binary, data, work, n_bases, threads):
    docs, sets, truth, n_bases = generate(data, n_bases)
    path = os.path.join(work, "generated.jsonl")
    with open(path, "w") as f:
        for i, words in enumerate(docs):
            f.write(json.dumps({"id": i, "text": " ".join(words)}) + "\n")
    positives = [(b, v) for b, v, j in truth if j >= THRESHOLD]
    print(f"## Generated near-duplicates ({len(docs)} docs: {n_bases} Reuters "
          f"bases x 4 edited variants; {len(positives)} base-variant pairs "
          f"with J >= {THRESHOLD})\n")
    print("precision = removal edges (representative -> removed doc) whose exact"
          " J >= 0.8;\nrecall = base-variant pairs with J >= 0.8 whose variant"
          " was removed\n(in brackets: removed into the base's own cluster).\n")
    print("| method | verify | bands x rows | precision | recall | seconds |")
    print("| --- | --- | --- | --- | --- | --- |")
    for algorithm, verify in (("minhash-lsh", "none"), ("minhash-lsh", "estimate"),
                              ("minhash-lsh", "exact"), ("simhash", "exact")):
        clusters_path = os.path.join(work, "gen_clusters.jsonl")
        stats_path = os.path.join(work, "gen_stats.json")
        run_dedup(binary, [path], os.path.join(work, "gen_out.jsonl"),
                  ["--method", algorithm, "--verification", verify,
                   "--threshold", str(THRESHOLD), "--threads", str(threads),
                   "--clusters", clusters_path, "--stats", stats_path])
        stats = read_json(stats_path)
        edges, cluster_of = [], {}
        for c in read_clusters(clusters_path):
            rep = c["representative"]
            for m in c["members"]:
                cluster_of[m] = rep
                if m != rep:
                    edges.append((rep, m))
        good = sum(1 for r, m in edges if jaccard(sets[r], sets[m]) >= THRESHOLD)
        precision = good / len(edges) if edges else 1.0
        removed = sum(1 for b, v in positives if v in cluster_of and cluster_of[v] != v)
        same = sum(1 for b, v in positives if cluster_of.get(v) == b)
        recall = removed / len(positives)
        banding = (f"{stats['bands']}x{stats['rows']}" if "bands" in stats
                   else f"k={stats.get('max_distance')}")
        print(f"| {algorithm} | {verify} | {banding} | {precision:.4f} "
              f"({good}/{len(edges)}) | {recall:.4f} ({same / len(positives):.4f}) "
              f"| {stats['seconds']} |")
    print()


# --- 3. Throughput -----------------------------------------------------------

def throughput(binary, data, work, threads, repeats=3):
    inputs = [os.path.join(data, "reuters21578.jsonl"),
              os.path.join(data, "20news_bydate.jsonl")]
    print(f"## Throughput: Reuters-21578 + 20 Newsgroups, --threads {threads} "
          f"(best of {repeats})\n")
    print("| algorithm | verify | docs | removed | seconds | docs/s | MB/s | "
          "peak RSS MB | index bytes/doc | RSS projected to 1M docs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for algorithm, verify in (("minhash-lsh", "estimate"), ("minhash-lsh", "none"),
                              ("minhash-lsh", "exact"), ("lshbloom", "none"),
                              ("simhash", "estimate"), ("suffix-array", "exact")):
        stats_path = os.path.join(work, "tp_stats.json")
        extra = ["--method", algorithm, "--threads", str(threads),
                 "--stats", stats_path]
        if algorithm != "suffix-array":
            extra += ["--verification", verify]
        runs = []
        for _ in range(repeats):
            run_dedup(binary, inputs, os.path.join(work, "tp_out.jsonl"), extra)
            runs.append(read_json(stats_path))
        s = min(runs, key=lambda r: r["seconds"])
        index_bytes = (s.get("index_bytes", 0) + s.get("token_set_bytes", 0)
                       + s.get("bloom_bytes", 0))
        per_doc = index_bytes / s["total"]
        projected = "-"
        if index_bytes and algorithm != "lshbloom":
            projected = f"{(s['peak_rss_bytes'] + per_doc * (1e6 - s['total'])) / 1e9:.2f} GB"
        elif algorithm == "lshbloom":
            projected = (f"{(s['peak_rss_bytes'] + s['bloom_bytes_per_expected_doc'] * 1e6) / 1e9:.2f}"
                         " GB (sized for 1M)")
        print(f"| {algorithm} | {verify} | {s['total']} | {s['duplicates']} | "
              f"{s['seconds']} | {s['docs_per_second']} | {s['mb_per_second']} | "
              f"{s['peak_rss_bytes'] / 1e6:.0f} | {per_doc:.0f} | {projected} |")
    print()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(
        here, "..", "build", "release", "client", "neardup"))
    parser.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"))
    parser.add_argument("--bases", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-throughput", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="neardup-dedup-quality-") as work:
        clough(args.bin, args.data, work)
        generated(args.bin, args.data, work, args.bases, args.threads)
        if not args.skip_throughput:
            throughput(args.bin, args.data, work, args.threads)


if __name__ == "__main__":
    main()

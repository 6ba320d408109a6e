#!/usr/bin/python3
"""Recall and precision of neardupd queries and `neardup dedup` against exact
Jaccard truth (run by hand, not in the suite).

The benchmark is generated from real texts (Reuters-21578 + 20 Newsgroups,
../shared/data):
- bases: texts reduced to lowercase letter-only words (so neardup's default
  pipeline and this script see the same 5-word shingles), chosen so that no
  two bases share a shingle;
- edited copies: random word deletions, substitutions and insertions at a
  rate drawn per copy, which spreads their Jaccard with the base over
  about 0.2 .. 1.0;
- attacked copies: a base with Unicode tricks (soft hyphens and zero-width
  characters inside words, Cyrillic/Greek look-alike letters, fullwidth
  forms, case flips). Their truth is their base: the text a reader sees.
- hard attacks: a base with the look-alikes case folding hides from the
  confusable skeleton: Greek and Cyrillic capitals in title-case and
  upper-case words (Β Μ Ν Η М ...), and I, 1, Cyrillic І, Greek Ι or
  palochka Ӏ for l. Their own generator, so the other sets do not change.

Truth is computed here, in Python, from the shingle sets: nothing of
neardup's code takes part in it.

Server: one collection per configuration is filled (bases + one edited copy
each), then probed with the other edited copies at T in 0.5 .. 0.9 (top_k
1000). recall = stored documents with exact J >= T that the answer names;
precision = named documents whose exact J >= T. A threshold below a
collection's floor is refused: "refused" in the table.

Dedup: every document (stored + probes + attacked) in one JSONL, in a fixed
shuffled order. Truth is the greedy exact dedup in that order (a document is
a duplicate when a kept earlier one has J >= T); recall = truth duplicates
that neardup removed; precision = removals whose representative has exact
J >= T with the removed document.

  /usr/bin/python3 bench/trust_bench.py [--bin-dir build/release]
      [--data ../shared/data] [--bases 3000] [--skip-server] [--skip-dedup]
      [--winnowing]   # perceptual at w = 1, 2, 4, 8 next to plain MinHash
      [--seed N] [--collections default,robust]  # other hash functions
"""

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time

# The same 5-word shingles and Jaccard as the older dedup benchmark.
from dedup_quality import jaccard, shingles  # noqa: E402

THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)


# --- corpus --------------------------------------------------------------------

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
    return out or words[:1]


CYRILLIC = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440",
            "c": "\u0441", "x": "\u0445", "y": "\u0443", "i": "\u0456",
            "s": "\u0455", "j": "\u0458"}
GREEK = {"o": "\u03bf", "i": "\u03b9", "v": "\u03bd", "k": "\u03ba",
         "u": "\u03c5", "t": "\u03c4"}
INVISIBLE = ["\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
# Capital look-alikes (Unicode confusables.txt) of Latin capitals.
CAPITALS = {
    "A": "\u0391\u0410", "B": "\u0392\u0412", "C": "\u03f9\u0421",
    "E": "\u0395\u0415", "F": "\u03dc", "H": "\u0397\u041d",
    "I": "\u0399\u0406", "J": "\u0408", "K": "\u039a\u041a",
    "M": "\u039c\u041c\u03fa", "N": "\u039d", "O": "\u039f\u041e",
    "P": "\u03a1\u0420", "S": "\u0405", "T": "\u03a4\u0422",
    "X": "\u03a7\u0425", "Y": "\u03a5\u04ae", "Z": "\u0396"}
# What an l can be written as.
L_LOOK_ALIKES = ["I", "1", "\u0406", "\u0399", "\u04c0"]


def attack(words, rng):
    """Unicode tricks a reader does not see (or reads as the same word)."""
    out = []
    for w in words:
        r = rng.random()
        if r < 0.15 and len(w) > 3:  # invisible character inside the word
            k = rng.randrange(1, len(w))
            w = w[:k] + rng.choice(INVISIBLE) + w[k:]
        elif r < 0.35:  # look-alike letters
            table = CYRILLIC if rng.random() < 0.7 else GREEK
            w = "".join(table.get(ch, ch) if rng.random() < 0.5 else ch
                        for ch in w)
        elif r < 0.45:  # fullwidth forms
            w = "".join(chr(ord(ch) - 0x61 + 0xFF41) for ch in w)
        elif r < 0.60:  # case flips
            w = "".join(ch.upper() if rng.random() < 0.5 else ch for ch in w)
        out.append(w)
    return " ".join(out)


def hard_attack(words, rng):
    """Look-alikes that case folding hides from the skeleton."""
    def capital(ch):
        options = CAPITALS.get(ch.upper())
        return rng.choice(options) if options else ch.upper()

    out = []
    for w in words:
        r = rng.random()
        if r < 0.25:  # title case, the first letter a look-alike capital
            w = capital(w[0]) + w[1:]
        elif r < 0.40:  # upper case, half the letters look-alike capitals
            w = "".join(capital(ch) if rng.random() < 0.5 else ch.upper()
                        for ch in w)
        elif r < 0.60 and "l" in w:  # an l written as I, 1, І, Ι or Ӏ
            w = "".join(rng.choice(L_LOOK_ALIKES) if ch == "l" else ch
                        for ch in w)
        out.append(w)
    return " ".join(out)


def load_bases(data, n_bases):
    bases, owner = [], {}
    for name in ("reuters21578.jsonl", "20news_bydate.jsonl"):
        with open(os.path.join(data, name)) as f:
            for line in f:
                words = re.findall(r"[a-z]+", json.loads(line)["text"].lower())
                if len(words) < 60:
                    continue
                words = words[:300]
                s = shingles(words)
                if any(x in owner for x in s):
                    continue  # overlaps a chosen base (corpus duplicates)
                for x in s:
                    owner[x] = len(bases)
                bases.append(words)
                if len(bases) == n_bases:
                    return bases
    return bases


def generate(data, n_bases, seed=11):
    rng = random.Random(seed)
    bases = load_bases(data, n_bases)
    vocabulary = sorted({w for b in bases for w in b})
    stored, probes, attacked = [], [], []  # (id, words or text, base index)
    for i, words in enumerate(bases):
        stored.append((f"b{i}", words, i))
        stored.append((f"s{i}", edit(words, rng.uniform(0, 0.15), rng,
                                     vocabulary), i))
        for k in range(2):
            probes.append((f"p{i}-{k}", edit(words, rng.uniform(0, 0.15), rng,
                                             vocabulary), i))
        if i % 3 == 0:
            attacked.append((f"a{i}", attack(words, rng), i))
    hard_rng = random.Random(seed + 1)
    hard = [(f"h{i}", hard_attack(words, hard_rng), i)
            for i, words in enumerate(bases) if i % 3 == 1]
    return bases, stored, probes, attacked, hard


def truth_for_probes(stored, probes):
    """For each probe: {stored id: exact J} over stored docs sharing a shingle."""
    sets = {doc_id: shingles(words) for doc_id, words, _ in stored}
    index = {}
    for doc_id, s in sets.items():
        for x in s:
            index.setdefault(x, []).append(doc_id)
    out = {}
    for probe_id, words, _ in probes:
        s = shingles(words)
        candidates = {d for x in s for d in index.get(x, ())}
        out[probe_id] = {d: jaccard(s, sets[d]) for d in candidates}
    return out


# --- server --------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stubs(proto_dir, out_dir):
    subprocess.run(
        ["protoc", "-I", proto_dir, "--python_out", out_dir,
         "--grpc_python_out", out_dir,
         "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
         "neardup/v1/neardup.proto"], check=True)
    sys.path.insert(0, out_dir)
    import grpc
    from neardup.v1 import neardup_pb2 as pb
    from neardup.v1 import neardup_pb2_grpc as pb_grpc
    return grpc, pb, pb_grpc


COLLECTIONS = (
    # name, config fields, how documents go in, what it shows
    ("default", {}, "text", "defaults (threshold 0.8)"),
    ("floor-0.5", {"threshold": 0.6, "min_threshold": 0.5}, "text",
     "threshold 0.6, min_threshold 0.5"),
    ("estimate", {"verification": 2}, "text", "verification estimate"),
    ("signatures", {}, "signatures", "defaults, documents as signatures"),
    ("txtfp", {"banding": 2, "verification": 2}, "text",
     "txtfp banding + estimate (before #11)"),
    ("robust", {"canonicalizer": {"profile": 1}}, "text",
     "defaults + robust canonicalizer profile"),
)


def found_share(stub, pb, grpc, name, copies):
    """Share of `copies` whose query at T 0.8 names their base."""
    found = 0
    for doc_id, text, base in copies:
        try:
            answer = stub.Query(pb.QueryRequest(
                collection=name, text=text.encode(), threshold=0.8, top_k=10))
        except grpc.RpcError:
            break
        found += any(m.id == f"b{base}" for m in answer.matches)
    return found / max(len(copies), 1)


def server(bin_dir, proto_dir, stored, probes, attacked, hard, work,
           seed=None, only=None):
    grpc, pb, pb_grpc = stubs(proto_dir, work)
    address = f"127.0.0.1:{free_port()}"
    log = open(os.path.join(work, "neardupd.log"), "w")
    proc = subprocess.Popen(
        [os.path.join(bin_dir, "server", "neardupd"), f"--listen={address}",
         "--metrics-listen=off", "--plaintext",
         f"--data-dir={work}/data"], stdout=log, stderr=log)
    channel = grpc.insecure_channel(
        address, options=[("grpc.max_receive_message_length", 64 << 20)])
    stub = pb_grpc.NearDupStub(channel)
    deadline = time.time() + 60
    while True:
        try:
            stub.ListCollections(pb.ListCollectionsRequest(), timeout=1)
            break
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or \
                    time.time() > deadline:
                raise
            time.sleep(0.1)
    try:
        truth = truth_for_probes(stored, probes)
        texts = {doc_id: " ".join(words) for doc_id, words, _ in stored}
        print("## Server queries vs exact Jaccard\n")
        print(f"{len(stored)} stored documents, {len(probes)} edited probes, "
              f"{len(attacked)} attacked copies, {len(hard)} hard attacks; "
              "top_k 1000.\n")
        header = " | ".join(f"T={t}" for t in THRESHOLDS)
        print(f"| collection | bands x rows | floor | {header} | attacked found "
              "(T=0.8) | hard attacks found (T=0.8) |")
        print("| --- | --- | --- | " + " | ".join("---" for _ in THRESHOLDS) +
              " | --- | --- |")
        for name, fields, mode, description in COLLECTIONS:
            if only and name not in only:
                continue
            fields = dict(fields)
            if seed is not None:
                fields["seed"] = seed
            if "canonicalizer" in fields:
                fields["canonicalizer"] = pb.CanonicalizerOptions(
                    **fields["canonicalizer"])
            config = pb.FingerprintConfig(**fields)
            created = stub.CreateCollection(
                pb.CreateCollectionRequest(name=name, config=config))
            items = []
            for doc_id, text in texts.items():
                if mode == "text":
                    items.append(pb.UpsertRequest(collection=name, id=doc_id,
                                                  text=text.encode()))
                else:
                    fp = stub.Fingerprint(pb.FingerprintRequest(
                        text=text.encode(), config=config))
                    items.append(pb.UpsertRequest(
                        collection=name, id=doc_id,
                        signatures=pb.Signatures(
                            minhash=fp.minhash,
                            minhash_config_hash=fp.minhash_config_hash)))
            batches = (pb.BulkUpsertRequest(items=items[i:i + 500])
                       for i in range(0, len(items), 500))
            for response in stub.BulkUpsert(batches):
                bad = [r for r in response.results if r.code != 0]
                if bad:
                    raise RuntimeError(f"{name}: {bad[0].message}")
            cells = []
            for t in THRESHOLDS:
                hit = want = named = right = 0
                refused = False
                for probe_id, words, _ in probes:
                    try:
                        answer = stub.Query(pb.QueryRequest(
                            collection=name, text=" ".join(words).encode(),
                            threshold=t, top_k=1000))
                    except grpc.RpcError as error:
                        if error.code() == grpc.StatusCode.INVALID_ARGUMENT:
                            refused = True
                            break
                        raise
                    exact = truth[probe_id]
                    positives = {d for d, j in exact.items() if j >= t}
                    found = {m.id for m in answer.matches}
                    want += len(positives)
                    hit += len(positives & found)
                    named += len(found)
                    right += sum(1 for d in found if exact.get(d, 0) >= t)
                if refused:
                    cells.append("refused")
                else:
                    cells.append(f"R {hit / max(want, 1):.4f} P "
                                 f"{right / max(named, 1):.4f} ({want})")
            found_attacked = found_share(stub, pb, grpc, name, attacked)
            found_hard = found_share(stub, pb, grpc, name, hard)
            c = created.config
            print(f"| {name}: {description} | {c.bands}x{c.rows} | "
                  f"{c.min_threshold:g} | " + " | ".join(cells) +
                  f" | {found_attacked:.3f} | {found_hard:.3f} |")
        print("\nR = recall, P = precision, (n) = stored documents with exact "
              "J >= T over all probes.\n")
    finally:
        channel.close()
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


# --- dedup ---------------------------------------------------------------------

def run_dedup(bin_dir, work, docs, threshold, extra):
    """Runs neardup dedup over docs [(id, text)]: (removed rows, edges, s)."""
    path = os.path.join(work, "dedup.jsonl")
    with open(path, "w") as f:
        for doc_id, text in docs:
            f.write(json.dumps({"id": doc_id, "text": text},
                               ensure_ascii=False) + "\n")
    clusters = os.path.join(work, "clusters.jsonl")
    stats = os.path.join(work, "stats.json")
    # A staged run gets a work directory of its own each time.
    extra = [tempfile.mkdtemp(dir=work) if arg == "@WORK_DIR" else arg
             for arg in extra]
    subprocess.run(
        [os.path.join(bin_dir, "client", "neardup"), "dedup", path, "-o",
         os.path.join(work, "out.jsonl"), "--no-progress", "--threshold",
         str(threshold), "--clusters", clusters, "--stats", stats,
         "--threads", "2", *extra], check=True, capture_output=True)
    removed, edges = set(), []
    with open(clusters) as f:
        for line in f:
            c = json.loads(line)
            for m in c["members"]:
                if m != c["representative"]:
                    removed.add(m)
                    edges.append((c["representative"], m))
    with open(stats) as f:
        seconds = json.load(f)["seconds"]
    return removed, edges, seconds


def greedy_truth(stored, probes, threshold):
    """The dedup input (stored + probes in a fixed shuffled order), its
    shingle sets, and the rows greedy exact dedup in that order removes (a
    document goes when a kept earlier one has J >= threshold)."""
    rng = random.Random(3)
    docs = list(stored + probes)
    rng.shuffle(docs)
    sets = [shingles(words) for _, words, _ in docs]
    index, duplicate = {}, [False] * len(docs)
    for i, s in enumerate(sets):
        candidates = {k for x in s for k in index.get(x, ())}
        if any(jaccard(s, sets[k]) >= threshold for k in candidates):
            duplicate[i] = True
            continue
        for x in s:
            index.setdefault(x, []).append(i)
    return docs, sets, {i for i, d in enumerate(duplicate) if d}


def dedup(bin_dir, stored, probes, attacked, hard, work, threshold=0.8,
          profiles=(("default", []),)):
    docs, sets, truth_removed = greedy_truth(stored, probes, threshold)
    # Attacked copies after their bases: each should go.
    base_rows = [(d, " ".join(w)) for d, w, _ in stored if d.startswith("b")]
    attack_docs = base_rows + [(d, text) for d, text, _ in attacked]
    attack_rows = set(range(len(base_rows), len(attack_docs)))
    hard_docs = base_rows + [(d, text) for d, text, _ in hard]
    hard_rows = set(range(len(base_rows), len(hard_docs)))
    print(f"## Dedup vs greedy exact truth (T = {threshold}, {len(docs)} docs, "
          f"{len(truth_removed)} true duplicates; attacked: "
          f"{len(attack_rows)} copies after their {len(base_rows)} bases; "
          f"hard attacks: {len(hard_rows)})\n")
    print("| run | removed | recall | precision | seconds | attacked removed "
          "| seconds | hard attacks removed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, extra in profiles:
        removed, edges, seconds = run_dedup(
            bin_dir, work, [(d, " ".join(w)) for d, w, _ in docs], threshold,
            extra)
        good = sum(1 for r, m in edges
                   if jaccard(sets[r], sets[m]) >= threshold)
        recall = len(removed & truth_removed) / max(len(truth_removed), 1)
        attacked_removed, _, attack_seconds = run_dedup(
            bin_dir, work, attack_docs, threshold, extra)
        hard_removed, _, _ = run_dedup(bin_dir, work, hard_docs, threshold,
                                       extra)
        print(f"| {label} | {len(removed)} | {recall:.4f} | "
              f"{good / max(len(edges), 1):.4f} | {seconds} | "
              f"{len(attacked_removed & attack_rows) / len(attack_rows):.3f} "
              f"| {attack_seconds} | "
              f"{len(hard_removed & hard_rows) / len(hard_rows):.3f} |")
    print()


def winnowing(bin_dir, stored, probes, work, threshold=0.8):
    """What winnowing buys: perceptual dedup at w in 1, 2, 4, 8 next to plain
    MinHash, all with 5-word shingles and --verification estimate, so the
    signatures alone decide, against the same greedy exact truth."""
    profiles = [("minhash-lsh (plain shingles)", [])]
    for w in (1, 2, 4, 8):
        profiles.append((f"perceptual w={w}",
                         ["--method", "perceptual", "--ngram", "5",
                          "--winnow-window", str(w)]))
    docs, sets, truth_removed = greedy_truth(stored, probes, threshold)
    print(f"## Winnowing (T = {threshold}, {len(docs)} docs, "
          f"{len(truth_removed)} true duplicates, --verification estimate)\n")
    print("| run | removed | recall | precision | seconds |")
    print("| --- | --- | --- | --- | --- |")
    for label, extra in profiles:
        removed, edges, seconds = run_dedup(
            bin_dir, work, [(d, " ".join(w)) for d, w, _ in docs], threshold,
            ["--verification", "estimate", *extra])
        good = sum(1 for r, m in edges
                   if jaccard(sets[r], sets[m]) >= threshold)
        recall = len(removed & truth_removed) / max(len(truth_removed), 1)
        print(f"| {label} | {len(removed)} | {recall:.4f} | "
              f"{good / max(len(edges), 1):.4f} | {seconds} |")
    print()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", default=os.path.join(here, "..", "build",
                                                          "release"))
    parser.add_argument("--data", default=os.path.join(here, "..", "..",
                                                       "shared", "data"))
    parser.add_argument("--bases", type=int, default=3000)
    parser.add_argument("--skip-server", action="store_true")
    parser.add_argument("--skip-dedup", action="store_true")
    parser.add_argument("--winnowing", action="store_true",
                        help="only the perceptual winnowing table")
    parser.add_argument("--seed", type=int,
                        help="MinHash seed of every server collection "
                        "(default: the collection default); another seed "
                        "draws other hash functions over the same documents")
    parser.add_argument("--collections",
                        help="server collections to run, comma-separated "
                        "(default: all)")
    args = parser.parse_args()
    bases, stored, probes, attacked, hard = generate(args.data, args.bases)
    with tempfile.TemporaryDirectory(prefix="neardup-trust-") as work:
        if args.winnowing:
            winnowing(args.bin_dir, stored, probes, work)
            return
        if not args.skip_server:
            server(args.bin_dir, os.path.join(here, "..", "proto"), stored,
                   probes, attacked, hard, work, seed=args.seed,
                   only=args.collections and args.collections.split(","))
        if not args.skip_dedup:
            dedup(args.bin_dir, stored, probes, attacked, hard, work, profiles=(
                ("default (--verification exact)", []),
                ("--verification estimate", ["--verification", "estimate"]),
                ("--verification none", ["--verification", "none"]),
                ("--profile robust", ["--profile", "robust"]),
                ("staged, 4 tasks (--verification exact)",
                 ["--tasks", "4", "--work-dir", "@WORK_DIR"]),
                ("staged, 4 tasks, --verification estimate",
                 ["--tasks", "4", "--work-dir", "@WORK_DIR", "--verification",
                  "estimate"]),
            ))


if __name__ == "__main__":
    main()

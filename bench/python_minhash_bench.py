#!/usr/bin/python3
"""neardup's Python MinHash + MinHashLSH against datasketch's, side by side.

Both libraries get the same documents (generated words; one in five a near
copy of an earlier one) as datasketch users feed them: each document's
tokens as UTF-8 bytes. Each round times, for each library in turn, three ways to the same
MinHashes, each followed by inserting them all into a MinHashLSH
(datasketch: an insertion session; neardup: insert_many) and querying
each:

  one by one:  MinHash(num_perm) + update_batch(tokens) per document;
  bulk:        MinHash.bulk(every document's tokens);
  texts:       from each document's text: datasketch splits and encodes it
               and takes MinHash.bulk; neardup.minhash_texts (canonicalize,
               cut words, hash) on --threads threads without the GIL,
               and its queries as one query_many.

Rounds alternate the libraries (datasketch, neardup, datasketch, ...), and
the figures are per-round ratios: the machine drifts between minutes.
Also checks that both find the planted near copies (recall) at the same
threshold. datasketch is pure Python: point --datasketch-src at an
unpacked source tree (it needs NumPy and SciPy, Debian python3-numpy and
python3-scipy).

  PYTHONPATH=build/release/python bench/python_minhash_bench.py \\
      --datasketch-src /tmp/datasketch-src --docs 20000 --rounds 3
"""

import argparse
import gc
import random
import statistics
import sys
import time


def corpus(n, words, seed):
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(20000)]
    docs, copies = [], []
    for i in range(n):
        if i >= 10 and rng.random() < 0.2:
            original = rng.randrange(i)
            tokens = list(docs[original])
            for _ in range(max(1, len(tokens) // 50)):  # ~2 % edited
                tokens[rng.randrange(len(tokens))] = rng.choice(vocab)
            copies.append((i, original))
        else:
            tokens = [rng.choice(vocab) for _ in range(words)]
        docs.append(tokens)
    encoded = [[t.encode("utf8") for t in doc] for doc in docs]
    return encoded, copies


def one_thread(lib, docs, args):
    out = {}
    start = time.perf_counter()
    minhashes = []
    for tokens in docs:
        m = lib.MinHash(num_perm=args.num_perm)
        m.update_batch(tokens)
        minhashes.append(m)
    out["minhash"] = time.perf_counter() - start
    lsh = lib.MinHashLSH(threshold=args.threshold, num_perm=args.num_perm)
    start = time.perf_counter()
    for i, m in enumerate(minhashes):
        lsh.insert(i, m)
    out["insert"] = time.perf_counter() - start
    start = time.perf_counter()
    found = [lsh.query(m) for m in minhashes]
    out["query"] = time.perf_counter() - start
    return out, found


def index(lib, name, minhashes, args, out, many=False):
    lsh = lib.MinHashLSH(threshold=args.threshold, num_perm=args.num_perm)
    start = time.perf_counter()
    if name == "neardup":
        lsh.insert_many(enumerate(minhashes))
    else:
        with lsh.insertion_session() as session:
            for i, m in enumerate(minhashes):
                session.insert(i, m)
    out["insert"] = time.perf_counter() - start
    start = time.perf_counter()
    if many and name == "neardup":
        found = lsh.query_many(minhashes)
    else:
        found = [lsh.query(m) for m in minhashes]
    out["query"] = time.perf_counter() - start
    return found


def batched(lib, name, docs, args):
    out = {}
    start = time.perf_counter()
    minhashes = lib.MinHash.bulk(docs, num_perm=args.num_perm)
    out["minhash"] = time.perf_counter() - start
    return out, index(lib, name, minhashes, args, out)


def texts(lib, name, docs, args):
    """From the text: datasketch splits and encodes it (as its users do),
    neardup canonicalizes and cuts words (the same words here) itself."""
    out = {}
    start = time.perf_counter()
    if name == "neardup":
        minhashes = lib.minhash_texts(docs, num_perm=args.num_perm, ngram=1,
                                      seed=1, threads=args.threads)
    else:
        minhashes = lib.MinHash.bulk(
            [[w.encode("utf8") for w in text.split()] for text in docs],
            num_perm=args.num_perm)
    out["minhash"] = time.perf_counter() - start
    return out, index(lib, name, minhashes, args, out, many=True)


def recall(found, copies):
    return sum(original in found[copy] for copy, original in copies) / max(
        1, len(copies))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasketch-src", required=True)
    parser.add_argument("--docs", type=int, default=20000)
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, args.datasketch_src)
    import datasketch
    import neardup
    libs = {"datasketch": datasketch, "neardup": neardup}
    docs, copies = corpus(args.docs, args.words, 7)
    text_docs = [b" ".join(doc).decode("utf8") for doc in docs]
    # The corpus's millions of token objects would make each collection of
    # Python's cyclic GC cost ~0.1 s, landing in whichever phase it falls
    # in: out of its sight, and collected before each run.
    gc.freeze()
    print(f"{args.docs} documents of {args.words} words, {len(copies)} near "
          f"copies; num_perm {args.num_perm}, threshold {args.threshold}; "
          f"datasketch from {datasketch.__file__}")
    ratios = {}
    for round_ in range(args.rounds):
        for mode in ("one by one", "bulk", "texts"):
            times = {}
            for name in ("datasketch", "neardup"):
                lib = libs[name]
                gc.collect()
                if mode == "one by one":
                    t, found = one_thread(lib, docs, args)
                elif mode == "bulk":
                    t, found = batched(lib, name, docs, args)
                else:
                    t, found = texts(lib, name, text_docs, args)
                times[name] = t
                print(f"round {round_ + 1} {mode:10} {name:10} "
                      + "  ".join(f"{k} {v:7.3f} s" for k, v in t.items())
                      + f"  total {sum(t.values()):7.3f} s"
                      f"  recall of copies {recall(found, copies):.4f}")
            for phase in ("minhash", "insert", "query", "total"):
                if phase == "total":
                    d = sum(times["datasketch"].values())
                    n = sum(times["neardup"].values())
                else:
                    d, n = times["datasketch"][phase], times["neardup"][phase]
                ratios.setdefault((mode, phase), []).append(d / n)
    print("\ndatasketch time / neardup time (per round; median):")
    for (mode, phase), values in ratios.items():
        print(f"  {mode:10} {phase:8} "
              + " ".join(f"{v:7.1f}" for v in values)
              + f"   median {statistics.median(values):7.1f}x")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Writes the README tour's sample data into a folder (default: tour/).

Generated, not downloaded: the same bytes on every machine (a fixed seed).
  news.jsonl        1000 articles {"id", "text", "source"}; one in ten is a
                    near-copy (a few words changed) of an earlier one
  probe.txt         a near-copy of news-7
  a.txt, b.txt      two near-copies of one article
  file.bin          4 KiB of arbitrary bytes (TLSH of raw bytes)
  vectors.jsonl     200 articles with a 384-dim unit vector {"id", "text",
                    "vec"}
  probe-vector.json a vector close to doc-3's, as `neardup embed` prints one

Usage: scripts/tour-data.py [FOLDER]
"""

import json
import math
import os
import random
import sys

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pen", "dor",
             "an", "el", "is", "om", "ul", "bra", "tek", "sal", "fin", "gro"]


def vocabulary(rng, size=3000):
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES)
                          for _ in range(rng.randint(1, 4))))
    return sorted(words)


def article(rng, words):
    sentences = []
    for _ in range(rng.randint(10, 18)):
        sentence = [rng.choice(words) for _ in range(rng.randint(8, 20))]
        sentences.append(" ".join(sentence).capitalize() + ".")
    return " ".join(sentences)


def near_copy(rng, text, words, changes=2):
    tokens = text.split(" ")
    for _ in range(changes):
        tokens[rng.randrange(len(tokens))] = rng.choice(words)
    return " ".join(tokens)


def unit(vector):
    norm = math.sqrt(sum(x * x for x in vector))
    return [round(x / norm, 6) for x in vector]


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "tour"
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(20261127)
    words = vocabulary(rng)
    texts = []
    with open(os.path.join(folder, "news.jsonl"), "w") as out:
        for i in range(1, 1001):
            if i > 10 and i % 10 == 0:
                text = near_copy(rng, texts[rng.randrange(len(texts))], words)
            else:
                text = article(rng, words)
            texts.append(text)
            record = {"id": f"news-{i}", "text": text,
                      "source": rng.choice(["wire", "desk", "blog"])}
            out.write(json.dumps(record) + "\n")
    with open(os.path.join(folder, "probe.txt"), "w") as out:
        out.write(near_copy(rng, texts[6], words) + "\n")
    base = article(rng, words)
    for name in ("a.txt", "b.txt"):
        with open(os.path.join(folder, name), "w") as out:
            out.write(near_copy(rng, base, words) + "\n")
    with open(os.path.join(folder, "file.bin"), "wb") as out:
        out.write(bytes(rng.randrange(256) for _ in range(4096)))
    vectors = []
    with open(os.path.join(folder, "vectors.jsonl"), "w") as out:
        for i in range(1, 201):
            vector = unit([rng.gauss(0, 1) for _ in range(384)])
            vectors.append(vector)
            record = {"id": f"doc-{i}", "text": article(rng, words),
                      "vec": vector}
            out.write(json.dumps(record) + "\n")
    probe = unit([x + rng.gauss(0, 0.01) for x in vectors[2]])
    with open(os.path.join(folder, "probe-vector.json"), "w") as out:
        json.dump({"model_id": "my-model@1", "dim": 384, "values": probe}, out)
        out.write("\n")
    print(f"wrote the tour's data to {folder}/")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Stores written by old neardupd builds, opened by this one.

Usage:
  old_stores.py make   --format N --neardupd BIN --neardup BIN --out DIR
  old_stores.py answer --format N --neardupd BIN --neardup BIN --out DIR
  old_stores.py check  --fixtures DIR --neardupd BIN --neardup BIN

`make` is run once per earlier store format, with the binaries of the last
commit that wrote it (README.md here says which): it starts that neardupd on
an empty data folder, creates the collections that build knows, ingests
docs.jsonl into each, records what the old build answers (collections get,
get, query: answers.json) and keeps the store its files (without RocksDB's
info logs and options files, which opening does not need) in DIR/store.
`answer` asks the questions again of the store already in DIR (a copy of
it), with the binaries of that format, and writes answers.json anew: for
when the questions grow, without writing the store again.

`check` requires one fixture per earlier format (1 .. the kFormatVersion of
storage/include/neardup/storage/store.h, minus one), copies each
DIR/formatN/store to a temp folder, starts this neardupd on it (which
upgrades it in place), asks the same questions and requires the same
answers: every field the old build printed, with the same value (fields
added since are allowed). Then it writes a near-copy of the first document
into every collection, which a query must find next to the original, and
restarts neardupd on the store, which must answer as before the restart.

Exit status: 0 passed, 1 failed. Only the standard library.
"""

import argparse
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Collections per format: name -> `collections create` flags. Each format
# keeps the earlier ones' collections and adds the families it introduced.
COLLECTIONS = {
    1: {
        "exact": ["--store-text"],
        "estimate": ["--verification", "estimate", "--simhash",
                     "--num-perm", "64"],
        "chars": ["--tokenizer", "grapheme", "--ngram", "4", "--num-perm",
                  "64", "--threshold", "0.6"],
    },
}
COLLECTIONS[2] = dict(COLLECTIONS[1])
COLLECTIONS[3] = dict(COLLECTIONS[2], **{
    "tlsh": ["--tlsh", "--store-text"],
    "perceptual": ["--algorithm", "perceptual", "--store-text"],
    "newsbot": ["--simhash", "--simhash-variant", "newsbot"],
})
COLLECTIONS[4] = dict(COLLECTIONS[3], **{
    "semantic": ["--embedding-model", "toy-4", "--embedding-dim", "4",
                 "--min-cosine", "0.9"],
})
# Format 5 changed no family; its exact collections keep 64-bit evidence,
# which format 6 must go on reading.
COLLECTIONS[5] = dict(COLLECTIONS[4])
# Query algorithms asked of each collection besides the default.
EXTRA_ALGORITHMS = {"estimate": ["simhash"], "newsbot": ["simhash"],
                    "semantic": ["semantic", "hybrid-all"]}
# Collections with an embedding space: their model id. Each document's
# vector is vector_of(its text).
EMBEDDING_MODELS = {"semantic": "toy-4"}


def vector_of(text):
    """A 4-dimensional vector the text decides (near-copies lie close)."""
    letters = text.lower()
    return [float(len(text) % 97 + 1), float(letters.count("e") + 1),
            float(letters.count(" ") + 1), float(letters.count("a") + 1)]


def embedding_flags(name, text):
    if name not in EMBEDDING_MODELS:
        return []
    return ["--embedding", ",".join(repr(x) for x in vector_of(text)),
            "--embedding-model", EMBEDDING_MODELS[name]]


def ingest(server, name, path):
    """Ingests a JSONL file of {"id", "text"} records into a collection."""
    flags = []
    if name in EMBEDDING_MODELS:
        with_vectors = path + ".vectors.jsonl"
        with open(path, encoding="utf-8") as f, \
                open(with_vectors, "w", encoding="utf-8") as out:
            for line in f:
                if line.strip():
                    record = json.loads(line)
                    record["vector"] = vector_of(record["text"])
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
        path = with_vectors
        flags = ["--embedding-field", "vector", "--embedding-model",
                 EMBEDDING_MODELS[name]]
    server.cli("ingest", "-c", name, "--no-progress", "--id-field", "id",
               *flags, path)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A neardupd on a free loopback port, stopped by its process id."""

    def __init__(self, neardupd, neardup, data_dir, log_path, flags=()):
        self.neardup = neardup
        self.address = f"127.0.0.1:{free_port()}"
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [neardupd, "--plaintext", "--data-dir", data_dir,
             "--listen", self.address, "--metrics-listen", "off", *flags],
            stdout=self.log, stderr=subprocess.STDOUT)

    def cli(self, *args, check=True):
        env = dict(os.environ, NEARDUP_SERVER=self.address)
        run = subprocess.run([self.neardup, *args], env=env,
                             capture_output=True, text=True,
                             encoding="utf-8", timeout=60, check=False)
        if check and run.returncode != 0:
            raise RuntimeError(f"neardup {' '.join(args)}: exit "
                               f"{run.returncode}: {run.stderr.strip()}")
        return run

    def wait_serving(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            if self.cli("health", check=False).returncode == 0:
                return True
            time.sleep(0.1)  # polling the real server's readiness
        return False

    def log_text(self):
        self.log.flush()
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def documents():
    with open(os.path.join(HERE, "docs.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def questions(collections):
    """Every question asked of a fixture: (key, neardup arguments)."""
    asked = {}
    # Every document is fetched and queried by.
    queried = [d["id"] for d in documents()]
    for name in collections:
        asked[f"collections get {name}"] = ["collections", "get", name]
        for doc_id in queried:
            asked[f"get {name} {doc_id}"] = ["get", "-c", name, doc_id]
        for algorithm in ["default"] + EXTRA_ALGORITHMS.get(name, []):
            for doc_id in queried:
                query = ["query", "-c", name, "--top-k", "20"]
                if algorithm != "default":
                    query += ["--algorithm", algorithm]
                asked[f"query {name} {algorithm} {doc_id}"] = (query, doc_id)
    return asked


def ask(server, collections, docs):
    """What the server answers about the fixture's collections."""
    texts = {d["id"]: d["text"] for d in docs}
    answers = {}
    for key, args in questions(collections).items():
        if isinstance(args, tuple):  # a query: the document's text
            args, doc_id = args
            name = args[args.index("-c") + 1]
            args = args + ["--text", texts[doc_id]]
            if "--algorithm" in args:
                args += embedding_flags(name, texts[doc_id])
        answers[key] = json.loads(server.cli(*args, "--json").stdout)
    return answers


def make(args):
    out = os.path.abspath(args.out)
    collections = COLLECTIONS[args.format]
    docs = documents()
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        # From format 2 on a backup flushes RocksDB's memtables: most
        # documents are then in table files, the last one in the log.
        flush = args.format >= 2
        head = os.path.join(work, "head.jsonl")
        tail = os.path.join(work, "tail.jsonl")
        with open(os.path.join(HERE, "docs.jsonl"), encoding="utf-8") as f:
            lines = [line for line in f if line.strip()]
        with open(head, "w", encoding="utf-8") as f:
            f.writelines(lines[:-1])
        with open(tail, "w", encoding="utf-8") as f:
            f.writelines(lines[-1:])
        server = Server(args.neardupd, args.neardup, data,
                        os.path.join(work, "server.log"),
                        ["--backup-dir", os.path.join(work, "backups")]
                        if flush else [])
        try:
            if not server.wait_serving():
                print(server.log_text())
                return 1
            for name, flags in collections.items():
                server.cli("collections", "create", name, *flags)
                ingest(server, name, head)
            if flush:
                server.cli("backup", "flushed")
            for name in collections:
                ingest(server, name, tail)
            answers = ask(server, collections, docs)
        finally:
            server.stop()
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        shutil.copytree(data, os.path.join(out, "store"),
                        ignore=shutil.ignore_patterns("LOG*", "LOCK", "OPTIONS-*"))
        write_answers(out, args.format, collections, answers)
    return 0


def write_answers(out, fmt, collections, answers):
    with open(os.path.join(out, "answers.json"), "w",
              encoding="utf-8") as f:
        # One answer per line: small, and diffs read well.
        f.write('{"format": %d,\n "collections": %s,\n "answers": {\n' %
                (fmt, json.dumps(list(collections))))
        f.write(",\n".join(
            f"  {json.dumps(q, ensure_ascii=False)}: "
            f"{json.dumps(a, sort_keys=True, ensure_ascii=False)}"
            for q, a in sorted(answers.items())))
        f.write("\n }\n}\n")


def answer(args):
    out = os.path.abspath(args.out)
    collections = COLLECTIONS[args.format]
    with open(os.path.join(out, "answers.json"), encoding="utf-8") as f:
        recorded = json.load(f)
    if (recorded["format"] != args.format or
            recorded["collections"] != list(collections)):
        print(f"{out} holds format {recorded['format']} with collections "
              f"{recorded['collections']}, not format {args.format}")
        return 1
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        shutil.copytree(os.path.join(out, "store"), data)
        server = Server(args.neardupd, args.neardup, data,
                        os.path.join(work, "server.log"))
        try:
            if not server.wait_serving():
                print(server.log_text())
                return 1
            answers = ask(server, collections, documents())
        finally:
            server.stop()
    # The build answers what it answered when it made the fixture.
    old = {q: a for q, a in recorded["answers"].items() if q in answers}
    failures = compare(old, answers, "answered again")
    if failures:
        print("\n".join(failures[:50]))
        return 1
    write_answers(out, args.format, collections, answers)
    return 0


def differences(old, new, path=""):
    """Where `new` does not say what `old` said (new fields are allowed)."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return [f"{path}: was an object, now {new!r}"]
        found = []
        for key, value in old.items():
            if key not in new:
                found.append(f"{path}.{key}: missing (was {value!r})")
            else:
                found += differences(value, new[key], f"{path}.{key}")
        return found
    if isinstance(old, list):
        if not isinstance(new, list) or len(old) != len(new):
            return [f"{path}: was {old!r}, now {new!r}"]
        found = []
        for i, (a, b) in enumerate(zip(old, new)):
            found += differences(a, b, f"{path}[{i}]")
        return found
    if isinstance(old, float) and isinstance(new, (int, float)):
        # Scores come out of log and cos: the last bit may differ by libm.
        if math.isclose(old, new, rel_tol=1e-12, abs_tol=1e-15):
            return []
    if old != new:
        return [f"{path}: was {old!r}, now {new!r}"]
    return []


def expected_formats():
    """1 .. this build's format - 1: every earlier format needs a fixture."""
    header = os.path.join(HERE, "..", "..", "..", "storage", "include",
                          "neardup", "storage", "store.h")
    with open(header, encoding="utf-8") as f:
        current = int(re.search(r"kFormatVersion = (\d+);", f.read()).group(1))
    return list(range(1, current))


def write_after_upgrade(server, collections, docs, work):
    """Ingests a near-copy of the first document into every collection."""
    new_file = os.path.join(work, "new.jsonl")
    with open(new_file, "w", encoding="utf-8") as f:
        f.write(json.dumps({"id": "after-upgrade",
                            "text": after_upgrade_text(docs)}) + "\n")
    for name in collections:
        ingest(server, name, new_file)


def after_upgrade_text(docs):
    return docs[0]["text"] + " appended after upgrade"


def find_after_upgrade(server, collections, docs, when):
    """The new document and the old one it copies answer from one index."""
    failures = []
    for name in collections:
        found = json.loads(server.cli(
            "query", "-c", name, "--text", after_upgrade_text(docs),
            "--json").stdout)
        ids = [m.get("id") for m in found.get("matches", [])]
        if "after-upgrade" not in ids or docs[0]["id"] not in ids:
            failures.append(f"{when}: {name}: a query for the document "
                            f"written after the upgrade found {ids}")
    return failures


def compare(expected, answers, when):
    failures = []
    for question, old in expected.items():
        failures += [f"{when}: {question}: {d}"
                     for d in differences(old, answers[question])]
    return failures


def check_fixture(args, fixture, fmt, docs):
    """The failures of one fixture (empty: it passed)."""
    with open(os.path.join(args.fixtures, fixture, "answers.json"),
              encoding="utf-8") as f:
        recorded = json.load(f)
    if recorded["format"] != fmt:
        return [f"answers.json says format {recorded['format']}"]
    collections = recorded["collections"]
    if collections != list(COLLECTIONS[fmt]):
        return [f"collections {collections}, expected "
                f"{list(COLLECTIONS[fmt])}"]
    if sorted(recorded["answers"]) != sorted(questions(collections)):
        return ["answers.json does not hold one answer per question "
                "(make the fixture again)"]
    failures = []
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "data")
        shutil.copytree(os.path.join(args.fixtures, fixture, "store"), data)
        # Opened (and upgraded), asked and written to; then opened again,
        # where it must answer as it did just before it was stopped.
        before_restart = None
        for opening in ("upgraded", "reopened"):
            server = Server(args.neardupd, args.neardup, data,
                            os.path.join(work, f"{opening}.log"))
            try:
                if not server.wait_serving():
                    return failures + [f"{opening}: neardupd did not start:\n"
                                       + server.log_text()]
                answers = ask(server, collections, docs)
                if before_restart is None:
                    failures += compare(recorded["answers"], answers, opening)
                    write_after_upgrade(server, collections, docs, work)
                    before_restart = ask(server, collections, docs)
                else:
                    failures += compare(before_restart, answers, opening)
                failures += find_after_upgrade(server, collections, docs,
                                               opening)
            finally:
                server.stop()
    return failures


def check(args):
    docs = documents()
    formats = expected_formats()
    present = sorted(d for d in os.listdir(args.fixtures)
                     if d.startswith("format"))
    wanted = [f"format{n}" for n in formats]
    if present != wanted:
        print(f"fixtures {present} in {args.fixtures}; this build's earlier "
              f"formats need exactly {wanted} (README.md says how to make "
              f"one)")
        return 1
    failed = False
    for fmt in formats:
        fixture = f"format{fmt}"
        try:
            failures = check_fixture(args, fixture, fmt, docs)
        except Exception as error:  # a crash names its fixture, then fails
            failures = [f"{type(error).__name__}: {error}"]
        for failure in failures[:50]:
            print(f"{fixture}: {failure}")
        if len(failures) > 50:
            print(f"{fixture}: ... and {len(failures) - 50} more")
        print(f"{fixture}: {'FAILED' if failures else 'passed'}")
        failed = failed or bool(failures)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    for mode in ("make", "answer"):
        m = sub.add_parser(mode)
        m.add_argument("--format", type=int, required=True,
                       choices=sorted(COLLECTIONS))
        m.add_argument("--neardupd", required=True)
        m.add_argument("--neardup", required=True)
        m.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--fixtures", default=HERE)
    c.add_argument("--neardupd", required=True)
    c.add_argument("--neardup", required=True)
    args = parser.parse_args()
    return {"make": make, "answer": answer, "check": check}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())

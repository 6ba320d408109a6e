#!/usr/bin/python3
"""Stores written by old neardupd builds, opened by this one.

Usage:
  old_stores.py make  --format N --neardupd BIN --neardup BIN --out DIR
  old_stores.py check --fixtures DIR --neardupd BIN --neardup BIN

`make` is run once per earlier store format, with the binaries of the last
commit that wrote it (README.md here says which): it starts that neardupd on
an empty data folder, creates the collections that build knows, ingests
docs.jsonl into each, records what the old build answers (collections get,
get, query: answers.json) and keeps the store its files (without RocksDB's
info logs and options files, which opening does not need) in DIR/store.

`check` copies each DIR/formatN/store to a temp folder, starts this
neardupd on it (which upgrades it in place), asks the same questions and
requires the same answers: every field the old build printed, with the same
value (fields added since are allowed). Then it writes one more document and
finds it, so the upgraded store takes writes too.

Exit status: 0 passed, 1 failed. Only the standard library.
"""

import argparse
import json
import os
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
# Query algorithms asked of each collection besides the default.
EXTRA_ALGORITHMS = {"estimate": ["simhash"], "newsbot": ["simhash"]}
# Documents queried and fetched.
QUERIED = ["a0", "a1", "b2", "c0", "d1", "solo"]


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
                             capture_output=True, text=True, check=False)
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

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def documents():
    with open(os.path.join(HERE, "docs.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def ask(server, collections, docs):
    """What the server answers about the fixture's collections."""
    answers = {}
    for name in collections:
        answers[f"collections get {name}"] = json.loads(
            server.cli("collections", "get", name, "--json").stdout)
        for doc_id in QUERIED:
            answers[f"get {name} {doc_id}"] = json.loads(
                server.cli("get", "-c", name, doc_id, "--json").stdout)
        texts = {d["id"]: d["text"] for d in docs}
        for algorithm in ["default"] + EXTRA_ALGORITHMS.get(name, []):
            for doc_id in QUERIED:
                args = ["query", "-c", name, "--text", texts[doc_id],
                        "--top-k", "20", "--json"]
                if algorithm != "default":
                    args += ["--algorithm", algorithm]
                answers[f"query {name} {algorithm} {doc_id}"] = json.loads(
                    server.cli(*args).stdout)
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
        server = Server(args.neardupd, args.neardup, data,
                        os.path.join(work, "server.log"),
                        ["--backup-dir", os.path.join(work, "backups")]
                        if flush else [])
        head = os.path.join(work, "head.jsonl")
        tail = os.path.join(work, "tail.jsonl")
        with open(os.path.join(HERE, "docs.jsonl")) as f:
            lines = [line for line in f if line.strip()]
        with open(head, "w") as f:
            f.writelines(lines[:-1])
        with open(tail, "w") as f:
            f.writelines(lines[-1:])
        try:
            if not server.wait_serving():
                print(open(os.path.join(work, "server.log")).read())
                return 1
            for name, flags in collections.items():
                server.cli("collections", "create", name, *flags)
                server.cli("ingest", "-c", name, "--no-progress",
                           "--id-field", "id", head)
            if flush:
                server.cli("backup", "flushed")
            for name in collections:
                server.cli("ingest", "-c", name, "--no-progress",
                           "--id-field", "id", tail)
            answers = ask(server, collections, docs)
        finally:
            server.stop()
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        shutil.copytree(data, os.path.join(out, "store"),
                        ignore=shutil.ignore_patterns("LOG*", "LOCK", "OPTIONS-*"))
        with open(os.path.join(out, "answers.json"), "w") as f:
            # One answer per line: small, and diffs read well.
            f.write('{"format": %d,\n "collections": %s,\n "answers": {\n' %
                    (args.format, json.dumps(list(collections))))
            f.write(",\n".join(
                f"  {json.dumps(q, ensure_ascii=False)}: "
                f"{json.dumps(a, sort_keys=True, ensure_ascii=False)}"
                for q, a in sorted(answers.items())))
            f.write("\n }\n}\n")
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
    if old != new:
        return [f"{path}: was {old!r}, now {new!r}"]
    return []


def check(args):
    docs = documents()
    fixtures = sorted(d for d in os.listdir(args.fixtures)
                      if d.startswith("format"))
    if not fixtures:
        print(f"no format* fixtures in {args.fixtures}")
        return 1
    failures = []
    for fixture in fixtures:
        with open(os.path.join(args.fixtures, fixture, "answers.json")) as f:
            recorded = json.load(f)
        with tempfile.TemporaryDirectory() as work:
            data = os.path.join(work, "data")
            shutil.copytree(os.path.join(args.fixtures, fixture, "store"),
                            data)
            server = Server(args.neardupd, args.neardup, data,
                            os.path.join(work, "server.log"))
            try:
                if not server.wait_serving():
                    with open(os.path.join(work, "server.log")) as log:
                        failures.append(f"{fixture}: neardupd did not start "
                                        f"on the old store:\n{log.read()}")
                    continue
                answers = ask(server, recorded["collections"], docs)
                for question, old in recorded["answers"].items():
                    for difference in differences(old, answers[question]):
                        failures.append(f"{fixture}: {question}: "
                                        f"{difference}")
                # The upgraded store takes writes.
                new_text = docs[0]["text"] + " appended after upgrade"
                new_file = os.path.join(work, "new.jsonl")
                with open(new_file, "w") as f:
                    f.write(json.dumps({"id": "after-upgrade",
                                        "text": new_text}) + "\n")
                for name in recorded["collections"]:
                    server.cli("ingest", "-c", name, "--no-progress", "--id-field", "id",
                               new_file)
                    found = json.loads(server.cli(
                        "query", "-c", name, "--text", new_text,
                        "--json").stdout)
                    ids = [m.get("id") for m in found.get("matches", [])]
                    if "after-upgrade" not in ids:
                        failures.append(f"{fixture}: {name}: a document "
                                        f"written after the upgrade is not "
                                        f"found: {ids}")
            finally:
                server.stop()
        print(f"{fixture}: {len(recorded['answers'])} answers compared")
    for failure in failures[:50]:
        print(failure)
    if len(failures) > 50:
        print(f"... and {len(failures) - 50} more")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    m = sub.add_parser("make")
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
    return make(args) if args.mode == "make" else check(args)


if __name__ == "__main__":
    sys.exit(main())

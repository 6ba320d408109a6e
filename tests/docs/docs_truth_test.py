#!/usr/bin/python3
"""Checks that what the docs name exists.

Usage: docs_truth_test.py --repo DIR --neardupd BIN --neardup BIN

For README.md, docs/*.md and every folder's README.md (tests/ included):
  paths    a `path` in backquotes that starts at a top-level folder (core/,
           server/, tests/, ...) exists in the repository; a relative one
           with a file extension exists below the document's folder or
           somewhere in the repository (so a renamed or deleted file is
           caught either way). `{a,b}` and `*` are expanded.
  symbols  a `Name::member`, `CamelCaseName` or `kConstant` in backquotes
           is an identifier of the sources (core/, storage/, server/,
           client/, proto/, bench/, tests/).
  binaries every build/release/server/... and build/release/client/...
           path in the docs, scripts/*.sh and deploy/Dockerfile is where
           this build put a binary.
  flags    every `--flag` in backquotes is a flag of neardupd or of some
           neardup command (as their --help prints them), or one of the
           few other tools' flags listed below; every --flag on a line that
           runs neardupd is one of neardupd's, and on a line that runs
           `neardup <command>`, one of that command's or a command's above
           it (on a docker or kubectl line, where "neardup" is a name, any
           of ours). "(was `--old`)" names an old spelling and is not
           checked; bench/README.md's flags are the benchmarks'.

Exit status: 0 passed, 1 failed. Only the standard library.
"""

import argparse
import glob
import itertools
import os
import re
import subprocess
import sys

TOP = {"core", "storage", "server", "client", "proto", "tests", "bench",
       "deploy", "docs", "scripts", "cmake", ".ci"}
SOURCE_DIRS = ["core", "storage", "server", "client", "proto", "bench",
               "tests", "deploy"]
SOURCE_EXTENSIONS = (".cc", ".h", ".proto", ".py", ".in", ".yml", ".yaml",
                     ".json")
# Flags of other tools that the docs show next to ours.
OTHER_TOOLS_FLAGS = {
    "--output-on-failure", "--test-dir", "--no-build-isolation",
    "--system-site-packages", "--no-index", "--build", "--target", "--vs",
    "--pin",
    "--change", "--strict", "--rm", "--network", "--user", "--config",
    "--web.listen-address", "--storage.tsdb.path", "--file", "--follow",
    "--namespace", "--kustomize", "--dry-run", "--for", "--timeout",
    "--from-file", "--from-literal", "--name", "--publish", "--volume",
    "--env", "--detach", "--entrypoint", "--tag", "--profile",
    "--help", "--version", "--stop-timeout", "--replicas",
}
# Ours, left out of --help on purpose: how the binaries re-execute
# themselves as sandboxed children.
INTERNAL_FLAGS = {"--internal-extract-child", "--internal-pdf-child"}
# Names of other projects the docs mention in backquotes (Kubernetes and
# Prometheus kinds, Abseil and gRPC internals seen in profiles).
OTHER_NAMES = {"PrometheusRule", "VolumeSnapshot", "ReadWriteOnce",
               "RuntimeDefault", "GraphCycles", "LowerThreadPoolCPUPriority"}
# Documents whose --flags belong to other programs (the benchmarks').
FLAGS_NOT_OURS = {"bench/README.md"}

BACKQUOTED = re.compile(r"`([^`\n]+)`")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9.-]*[a-z0-9])")
SYMBOL_QUALIFIED = re.compile(r"^[A-Za-z_]\w*(::[A-Za-z_~]\w*)+(\(\))?$")
SYMBOL_CAMEL = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$")
SYMBOL_CONSTANT = re.compile(r"^k[A-Z]\w+$")
PATHLIKE = re.compile(r"^[\w.{},*/-]+$")
# neardup or neardupd run as a command (not --neardupd, not a file name).
COMMAND = re.compile(r"(?:^|[\s/(])neardupd?(?=\s)(?<!-neardup)(?<!-neardupd)")


def documents(repo):
    out = [os.path.join(repo, "README.md")]
    out += sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    for top in sorted(TOP):
        for root, dirs, files in os.walk(os.path.join(repo, top)):
            dirs[:] = [d for d in dirs if d not in ("build", ".git")]
            if "README.md" in files and os.path.dirname(root) != repo + "/docs":
                path = os.path.join(root, "README.md")
                if path not in out:
                    out.append(path)
    return [p for p in out if os.path.exists(p)]


def expand(token):
    """`a/{b,c}.h` -> [a/b.h, a/c.h]."""
    match = re.search(r"\{([^{}]*)\}", token)
    if not match:
        return [token]
    out = []
    for choice in match.group(1).split(","):
        out += expand(token[:match.start()] + choice + token[match.end():])
    return out


def exists(repo, path):
    full = os.path.join(repo, path)
    return bool(glob.glob(full)) if "*" in path else os.path.exists(full)


def all_repo_files(repo):
    files = []
    for top in TOP:
        for root, dirs, names in os.walk(os.path.join(repo, top)):
            dirs[:] = [d for d in dirs if d not in ("build", ".git")]
            for name in names:
                files.append(os.path.relpath(os.path.join(root, name), repo))
    return files


def source_identifiers(repo):
    words = set()
    for top in SOURCE_DIRS:
        for root, dirs, names in os.walk(os.path.join(repo, top)):
            dirs[:] = [d for d in dirs if d != "build"]
            for name in names:
                if not name.endswith(SOURCE_EXTENSIONS):
                    continue
                with open(os.path.join(root, name), errors="replace") as f:
                    words.update(re.findall(r"[A-Za-z_~]\w*", f.read()))
    return words


def help_flags(binary, args):
    text = subprocess.run([binary] + args + ["--help"], capture_output=True,
                          text=True, check=False).stdout
    return text, set(FLAG.findall(text))


def known_flags(neardupd, neardup, by_command):
    """Every flag of neardupd and of any neardup command; `by_command`
    gets each command's own ("neardupd", or the neardup subcommand path as
    a tuple)."""
    flags = set(help_flags(neardupd, [])[1])
    by_command["neardupd"] = set(flags)
    pending = [[]]
    seen = set()
    while pending:
        command = pending.pop()
        if tuple(command) in seen:
            continue
        seen.add(tuple(command))
        text, found = help_flags(neardup, command)
        by_command[tuple(command)] = found
        flags |= found
        if "Subcommands:" in text:
            block = text.split("Subcommands:", 1)[1]
            for line in block.splitlines():
                match = re.match(r"^  ([a-z][a-z-]*)\s", line)
                if match:
                    pending.append(command + [match.group(1)])
    return flags


def ignored(repo, path):
    """A folder users make, kept out of git by its parent's .gitignore."""
    parent, name = os.path.split(path.rstrip("/"))
    gitignore = os.path.join(repo, parent, ".gitignore")
    if not os.path.exists(gitignore):
        return False
    with open(gitignore) as f:
        entries = {line.strip().strip("/") for line in f}
    return name in entries


def check_path(repo, doc, token, files, errors):
    token = re.sub(r"(:\d+(-\d+)?|#[\w-]+)$", "", token)
    for path in expand(token):
        if path.startswith("../"):
            continue  # outside the repository, and said so
        here = os.path.normpath(os.path.join(os.path.dirname(doc), path))
        if exists(repo, here) or exists(repo, path) or ignored(repo, path):
            continue
        first = path.split("/", 1)[0]
        if first in TOP:
            errors.append(f"{doc}: path `{path}` does not exist")
            continue
        # Relative to some folder the text names: a file somewhere.
        if not re.search(r"\.\w+$", path.rstrip("/")):
            continue
        if not any(f.endswith("/" + path) or f == path for f in files):
            errors.append(f"{doc}: path `{path}` matches no file")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--neardupd", required=True)
    parser.add_argument("--neardup", required=True)
    args = parser.parse_args()
    repo = os.path.abspath(args.repo)
    files = all_repo_files(repo)
    identifiers = source_identifiers(repo)
    by_command = {}
    flags = (known_flags(args.neardupd, args.neardup, by_command)
             | OTHER_TOOLS_FLAGS | INTERNAL_FLAGS)
    errors = []
    checked = {"paths": 0, "symbols": 0, "flags": 0}
    for doc_path in documents(repo):
        doc = os.path.relpath(doc_path, repo)
        with open(doc_path) as f:
            text = f.read()
        for found in BACKQUOTED.finditer(text):
            token = found.group(1).strip()
            # "(was `--old`)": an old spelling, named as history.
            history = text[max(0, found.start() - 5):found.start()] == "(was "
            if "/" in token and PATHLIKE.match(token) and "//" not in token:
                checked["paths"] += 1
                check_path(repo, doc, token, files, errors)
            elif (SYMBOL_QUALIFIED.match(token) or SYMBOL_CAMEL.match(token)
                  or SYMBOL_CONSTANT.match(token)):
                checked["symbols"] += 1
                last = re.sub(r"\(\)$", "", token).split("::")[-1]
                if last not in identifiers and token not in OTHER_NAMES:
                    errors.append(f"{doc}: symbol `{token}` is not in the "
                                  "sources")
            if doc in FLAGS_NOT_OURS or history:
                continue
            for flag in FLAG.findall(token):
                checked["flags"] += 1
                if flag not in flags:
                    errors.append(f"{doc}: flag `{flag}` is no flag of "
                                  "neardupd or neardup")
        for line in text.splitlines():
            command = COMMAND.search(line)
            if doc in FLAGS_NOT_OURS or not command or "`" in line:
                continue
            # The command's own flags: those of neardupd, or of the neardup
            # subcommand the line runs and the commands above it.
            rest = re.split(r"\||&&|;", line[command.end():])[0]
            if re.search(r"\b(docker|kubectl|podman)\b|neardup:\d", line):
                # A container's or a cluster's command line: "neardup" is a
                # name there, and the flags are any of ours or the tool's.
                allowed, named = flags, "neardupd or neardup"
            elif command.group(0).strip().endswith("neardupd"):
                allowed, named = by_command["neardupd"], "neardupd"
            else:
                path = ()
                for word in rest.split():
                    if path + (word,) not in by_command:
                        break
                    path += (word,)
                allowed = set(INTERNAL_FLAGS)
                for end in range(len(path) + 1):
                    allowed |= by_command[path[:end]]
                named = " ".join(("neardup",) + path)
            for flag in FLAG.findall(rest):
                checked["flags"] += 1
                if flag not in allowed:
                    errors.append(f"{doc}: flag {flag} (in `{line.strip()}`)"
                                  f" is no flag of {named}")
    # Binaries where the docs and scripts run them.
    build_root = os.path.dirname(os.path.dirname(os.path.abspath(
        args.neardup)))
    runners = documents(repo) + glob.glob(os.path.join(repo, "scripts",
                                                       "*.sh"))
    runners.append(os.path.join(repo, "deploy", "Dockerfile"))
    for runner in runners:
        with open(runner) as f:
            for binary in set(re.findall(
                    r"build/release/((?:server|client)/[\w/.-]*\w)",
                    f.read())):
                if not os.path.isfile(os.path.join(build_root, binary)):
                    errors.append(f"{os.path.relpath(runner, repo)}: "
                                  f"build/release/{binary} is not where the "
                                  "build puts it")
    for error in errors:
        print(error)
    print(f"checked {checked['paths']} paths, {checked['symbols']} symbols, "
          f"{checked['flags']} flags in {len(documents(repo))} documents: "
          f"{len(errors)} wrong")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

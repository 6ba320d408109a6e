#!/usr/bin/python3
"""Runs the README's tour as written, against a neardupd of its own.

Usage: readme_tour_test.py --repo DIR --neardupd BIN --neardup BIN

Takes the first ```sh block under "## A tour" in README.md and runs each
line with bash in a fresh folder (its scripts/ is the repository's), with
N set to the neardup binary and NEARDUP_SERVER to a neardupd started on a
free loopback port with an empty data folder (the embedded default, as
scripts/run.sh starts it). Every line must exit 0; a few answers are
checked. The server is stopped by its process id.

Exit status: 0 passed, 1 failed. Only the standard library.
"""

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time


def tour_lines(readme):
    with open(readme) as f:
        text = f.read()
    section = text.split("## A tour", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_serving(neardup, env, server):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        if subprocess.run([neardup, "health"], env=env, capture_output=True,
                          check=False).returncode == 0:
            return True
        time.sleep(0.1)  # polling the real server's readiness
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--neardupd", required=True)
    parser.add_argument("--neardup", required=True)
    args = parser.parse_args()
    repo = os.path.abspath(args.repo)
    lines = tour_lines(os.path.join(repo, "README.md"))
    failures = []
    with tempfile.TemporaryDirectory() as work:
        os.symlink(os.path.join(repo, "scripts"),
                   os.path.join(work, "scripts"))
        port = free_port()
        env = dict(os.environ, N=os.path.abspath(args.neardup),
                   NEARDUP_SERVER=f"127.0.0.1:{port}")
        server = subprocess.Popen(
            [os.path.abspath(args.neardupd), "--plaintext",
             "--data-dir", os.path.join(work, "data"),
             "--listen", f"127.0.0.1:{port}", "--metrics-listen", "off"],
            cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            if not wait_serving(env["N"], env, server):
                print("neardupd did not start serving")
                return 1
            outputs = {}
            for line in lines:
                run = subprocess.run(["bash", "-c", line], cwd=work, env=env,
                                     capture_output=True, text=True,
                                     check=False, timeout=300)
                outputs[line] = run.stdout
                status = "ok" if run.returncode == 0 else "FAILED"
                print(f"[{status}] {line}")
                if run.returncode != 0:
                    failures.append(f"{line}\n  exit {run.returncode}: "
                                    f"{run.stderr.strip()[-500:]}")
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
        # A few answers the tour promises.
        def output_of(prefix):
            return next((out for line, out in outputs.items()
                         if line.startswith(prefix)), "")
        if "SERVING" not in output_of("$N health"):
            failures.append("health did not say SERVING")
        if "news-7" not in output_of("$N query -c news"):
            failures.append("the probe's query did not find news-7")
        if "doc-3" not in output_of("$N query -c sem"):
            failures.append("the semantic query did not find doc-3")
        if not os.path.exists(os.path.join(work, "tour", "unique.jsonl")):
            failures.append("dedup wrote no tour/unique.jsonl")
    for failure in failures:
        print(failure)
    print(f"ran {len(lines)} tour lines: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

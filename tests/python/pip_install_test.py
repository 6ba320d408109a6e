#!/usr/bin/python3
"""The Python package installs as client/python/README.md says.

Copies client/python to a temp folder, creates a venv with
--system-site-packages, runs `pip install --no-build-isolation` on the copy
(NEARDUP_SOURCE_DIR points at the repository, so nothing is written into
it), then, from another folder, imports the installed package, runs the
examples with the venv's interpreter (each with a neardupd of its own,
tests/python/run_example.py), and has mypy check a user's script
against the installed py.typed package. The generated client API
(messages, stubs) must be there too.

Usage: pip_install_test.py REPOSITORY_ROOT NEARDUPD
"""

import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1])
NEARDUPD = os.path.abspath(sys.argv[2])
RUN_EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "run_example.py")


def run(args, **kwargs):
    done = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        print(f"$ {' '.join(args)}\n{done.stdout}\n{done.stderr}")
        sys.exit(1)
    return done.stdout


def main():
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "python")
        shutil.copytree(os.path.join(ROOT, "client", "python"), source,
                        ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                      "__pycache__"))
        venv = os.path.join(work, "venv")
        run(["/usr/bin/python3", "-m", "venv", "--system-site-packages",
             venv])
        python = os.path.join(venv, "bin", "python")
        env = dict(os.environ, NEARDUP_SOURCE_DIR=ROOT,
                   PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)  # the installed package, not the build's
        run([python, "-m", "pip", "install", "--no-build-isolation",
             "--no-index", source], env=env, cwd=work)
        where = run([python, "-c",
                     "import neardup\n"
                     "from neardup.messages import QueryRequest\n"
                     "assert QueryRequest(collection='c').to_proto()"
                     ".collection == 'c'\n"
                     "neardup.Client('127.0.0.1:1').close()\n"
                     "print(neardup.__file__)"],
                    env=env, cwd=work)
        if not where.startswith(venv):
            print(f"imported neardup from {where}, not the venv")
            return 1
        # pip's build has no parsers: a content type is refused, saying so.
        run([python, "-c",
             "import neardup\n"
             "try:\n"
             "    list(neardup.dedup(['<p>x</p>'], content_type='text/html'))\n"
             "except ValueError as e:\n"
             "    assert 'no extractor for text/html' in str(e), e\n"
             "else:\n"
             "    raise SystemExit('text/html was taken')\n"],
            env=env, cwd=work)
        examples = os.path.join(ROOT, "client", "python", "examples")
        for name in sorted(os.listdir(examples)):
            if name.endswith(".py"):
                run([python, RUN_EXAMPLE, NEARDUPD,
                     os.path.join(examples, name)], env=env, cwd=work)
        user = os.path.join(work, "user.py")
        with open(user, "w") as f:
            f.write("import neardup\n"
                    "m = neardup.MinHash(num_perm=64)\n"
                    "m.update(b'token')\n"
                    "lsh = neardup.MinHashLSH(threshold=0.5, num_perm=64)\n"
                    "lsh.insert('key', m)\n"
                    "found: list[object] = lsh.query(m)\n"
                    "def ask(client: neardup.Client) -> int:\n"
                    "    answer = client.query('news', text='words',\n"
                    "                          top_k=3)\n"
                    "    best: float = answer.matches[0].similarity\n"
                    "    return answer.candidates + int(best)\n"
                    "wrong: str = m.jaccard(m)\n")
        checked = subprocess.run(
            [python, "-m", "mypy", "--strict", "--no-incremental", user],
            capture_output=True, text=True, env=env, cwd=work)
        # The one error is the wrong annotation: mypy read the stubs.
        if ('Incompatible types in assignment (expression has type "float", '
                'variable has type "str")' not in checked.stdout or
                "Found 1 error" not in checked.stdout):
            print(f"mypy on a user's script:\n{checked.stdout}"
                  f"{checked.stderr}")
            return 1
    print("installed, imported, examples ran, mypy read the types")
    return 0


if __name__ == "__main__":
    sys.exit(main())

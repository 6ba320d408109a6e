#!/usr/bin/python3
"""Runs one of client/python/examples as a user would, with a neardupd of
its own: started on a free loopback port with a temporary data directory,
named to the example by $NEARDUP_SERVER, stopped by its process id.

  run_example.py NEARDUPD EXAMPLE.py
"""

import os
import socket
import subprocess
import sys
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    neardupd, example = sys.argv[1], sys.argv[2]
    address = f"127.0.0.1:{free_port()}"
    with tempfile.TemporaryDirectory() as work:
        # The sanitizer build preloads the ASan runtime into python3; an
        # instrumented neardupd carries its own.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        log = open(os.path.join(work, "neardupd.log"), "wb")
        server = subprocess.Popen(
            [neardupd, "--listen", address, "--plaintext",
             "--metrics-listen", "off", "--data-dir",
             os.path.join(work, "data")],
            stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            # Until the server answers SERVING (its store is open): the
            # example's writes are not retried, and before that they would
            # be refused as UNAVAILABLE.
            import neardup
            deadline = time.monotonic() + 120
            with neardup.Client(address, timeout=5, max_attempts=1) as client:
                while True:
                    try:
                        if client.health() == "SERVING":
                            break
                    except neardup.NeardupError:
                        pass  # not listening yet
                    if server.poll() is not None or \
                            time.monotonic() > deadline:
                        log.close()
                        print(open(log.name).read(), file=sys.stderr)
                        return 1
                    time.sleep(0.05)
            run = subprocess.run([sys.executable, example],
                                 env=dict(os.environ,
                                          NEARDUP_SERVER=address))
            return run.returncode
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()


if __name__ == "__main__":
    sys.exit(main())

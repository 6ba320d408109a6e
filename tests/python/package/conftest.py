"""Fixtures: a real neardupd on a free loopback port, stopped by its pid.

The binary is $NEARDUPD (the suite sets it to the build's); tests that
need a server are skipped only when it is not set (running pytest by hand).
"""

import os
import socket
import subprocess
import tempfile
from typing import Iterator, List

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Neardupd:
    def __init__(self, work: str, flags: List[str],
                 plaintext: bool = True) -> None:
        self.address = f"127.0.0.1:{free_port()}"
        self.log_path = os.path.join(work, f"neardupd-{free_port()}.log")
        self.log = open(self.log_path, "wb")
        data = os.path.join(work, f"data-{free_port()}")
        # Not the ASan runtime the sanitizer build preloads into python3:
        # an instrumented neardupd carries its own.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        self.process = subprocess.Popen(
            [os.environ["NEARDUPD"], "--listen", self.address,
             "--metrics-listen", "off", "--data-dir", data,
             *(["--plaintext"] if plaintext else []), *flags],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def log_text(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()


@pytest.fixture(scope="module")
def work() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as path:
        yield path


def start(work: str, flags: List[str] = [],
          plaintext: bool = True) -> Neardupd:
    if "NEARDUPD" not in os.environ:
        pytest.skip("NEARDUPD is not set (the suite sets it)")
    return Neardupd(work, list(flags), plaintext)


@pytest.fixture(scope="module")
def server(work: str) -> Iterator[Neardupd]:
    running = start(work)
    yield running
    running.stop()

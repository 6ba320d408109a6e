"""Fixtures: a real neardupd with its HTTP listener on free loopback ports,
stopped by its pid, and a small HTTP client (http.client, keep-alive)."""

import base64
import http.client
import json
import os
import socket
import ssl
import subprocess
import tempfile
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def b64(text: str) -> str:
    """proto3 JSON writes bytes fields (a document's text) as base64."""
    return base64.b64encode(text.encode()).decode()


class Answer:
    def __init__(self, status: int, headers: Dict[str, str], body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def lines(self) -> List[Any]:
        return [json.loads(line) for line in self.body.splitlines() if line]


class Neardupd:
    def __init__(self, work: str, flags: List[str], tls: bool = False):
        self.grpc = f"127.0.0.1:{free_port()}"
        self.http_port = free_port()
        self.metrics_port = free_port()
        self.tls_context: Optional[ssl.SSLContext] = None
        self.log_path = os.path.join(work, f"neardupd-{self.http_port}.log")
        self.log = open(self.log_path, "wb")
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        self.process = subprocess.Popen(
            [os.environ["NEARDUPD"], "--listen", self.grpc,
             "--http-listen", f"127.0.0.1:{self.http_port}",
             "--metrics-listen", f"127.0.0.1:{self.metrics_port}",
             "--data-dir", os.path.join(work, f"data-{self.http_port}"),
             *([] if tls else ["--plaintext"]), *flags],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def connect(self) -> http.client.HTTPConnection:
        if self.tls_context is not None:
            return http.client.HTTPSConnection(
                "127.0.0.1", self.http_port, timeout=60,
                context=self.tls_context)
        return http.client.HTTPConnection("127.0.0.1", self.http_port,
                                          timeout=60)

    def request(self, method: str, path: str, body: Any = None,
                headers: Optional[Dict[str, str]] = None,
                connection: Optional[http.client.HTTPConnection] = None
                ) -> Answer:
        sent = dict(headers or {})
        data: Optional[bytes] = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        c = connection or self.connect()
        try:
            c.request(method, path, body=data, headers=sent)
            r = c.getresponse()
            return Answer(r.status, {k.lower(): v for k, v in r.getheaders()},
                          r.read())
        finally:
            if connection is None:
                c.close()

    def wait_serving(self, headers: Optional[Dict[str, str]] = None) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log_text()
            try:
                answer = self.request("GET", "/v1/health", headers=headers)
                if (answer.status == 200 and
                        answer.json()["status"] == "SERVING"):
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        raise AssertionError("neardupd did not serve:\n" + self.log_text())

    def metrics(self) -> str:
        c = http.client.HTTPConnection("127.0.0.1", self.metrics_port,
                                       timeout=30)
        c.request("GET", "/metrics")
        return c.getresponse().read().decode()

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


def start(work: str, flags: List[str] = [], tls: bool = False) -> Neardupd:
    if "NEARDUPD" not in os.environ:
        pytest.skip("NEARDUPD is not set (the suite sets it)")
    return Neardupd(work, list(flags), tls)


@pytest.fixture(scope="module")
def server(work: str) -> Iterator[Neardupd]:
    running = start(work, ["--max-message-bytes", str(1 << 20),
                           "--max-document-bytes", str(512 << 10),
                           "--backup-dir", os.path.join(work, "backups")])
    try:
        running.wait_serving()
        yield running
    finally:
        running.stop()

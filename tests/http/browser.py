"""Debian's headless Chromium driven over the DevTools protocol (a
websocket, python3-websocket): navigate, run JavaScript in the page, type,
click, wait for what appears, and take screenshots."""

import base64
import json
import os
import subprocess
import time
import urllib.request
from typing import Any, Optional

import websocket

from conftest import free_port


class Browser:
    def __init__(self, work: str) -> None:
        self.port = free_port()
        self.log = open(os.path.join(work, "chromium.log"), "wb")
        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--window-size=1280,1000", "--remote-allow-origins=*",
             f"--remote-debugging-port={self.port}",
             f"--user-data-dir={os.path.join(work, 'chromium-profile')}",
             "about:blank"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.next_id = 0
        self.ws = websocket.create_connection(self._page_socket(), timeout=60,
                                              suppress_origin=True)
        self.call("Page.enable")
        self.call("Runtime.enable")

    def _page_socket(self) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "chromium exited"
            try:
                with urllib.request.urlopen(
                        f"http://127.0.0.1:{self.port}/json/list",
                        timeout=5) as r:
                    for target in json.load(r):
                        if target["type"] == "page":
                            return str(target["webSocketDebuggerUrl"])
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError("chromium's DevTools endpoint did not come up")

    def call(self, method: str, **params: Any) -> Any:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method,
                                 "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression,
                           awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, condition: str, timeout: float = 30,
                 what: Optional[str] = None) -> Any:
        """Polls the page until `condition` (JavaScript) is truthy."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(condition)
            # A DOM node comes back as {}: found, although falsy here.
            if value is not None and value is not False and value != 0 \
                    and value != "":
                return value
            time.sleep(0.05)
        status = self.evaluate("document.getElementById('status') && "
                               "document.getElementById('status').textContent")
        raise AssertionError(f"timed out waiting for {what or condition}; "
                             f"status: {status!r}")

    def go(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")

    def type_into(self, selector: str, text: str) -> None:
        """Focuses the element and types `text` as keystrokes would."""
        self.evaluate(f"(() => {{ const e = document.querySelector("
                      f"{json.dumps(selector)}); e.focus(); e.value = ''; "
                      f"return true; }})()")
        self.call("Input.insertText", text=text)

    def click(self, selector: str) -> None:
        self.evaluate(f"document.querySelector({json.dumps(selector)})"
                      f".click()")

    def press_enter(self) -> None:
        """Enter on the focused element, as a keyboard sends it."""
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key="Enter",
                      code="Enter", windowsVirtualKeyCode=13,
                      **({"text": "\r"} if kind == "keyDown" else {}))

    def choose_file(self, selector: str, path: str) -> None:
        """Sets a file input's file, as the file chooser would."""
        document = self.call("DOM.getDocument")
        node = self.call("DOM.querySelector",
                         nodeId=document["root"]["nodeId"], selector=selector)
        self.call("DOM.setFileInputFiles", files=[path],
                  nodeId=node["nodeId"])

    def screenshot(self, path: str) -> None:
        data = self.call("Page.captureScreenshot", format="png",
                         captureBeyondViewport=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.log.close()

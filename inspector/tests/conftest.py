"""Fixtures: a real ``milieud``, a real ``milieu inspect`` serving it, and headless Chromium.

The binaries are the freshly built ones: ``$MILIEUD`` (the project's test command sets it)
and ``milieu`` beside it, else ``.build/debug`` of the repository. Chromium and its driver
are Debian's (``scripts/setup`` installs ``chromium`` and ``chromium-driver``).
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

import milieu

REPO = Path(__file__).resolve().parents[2]
URL_PATTERN = re.compile(r"^http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{48})$")


def binary(name: str) -> str:
    daemon = os.environ.get("MILIEUD")
    directory = Path(daemon).parent if daemon else REPO / ".build" / "debug"
    path = directory / name
    if not path.exists():
        raise RuntimeError(f"{path} is missing: build first (swift build) or set MILIEUD to the built milieud")
    return str(path)


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


class Daemon:
    """A ``milieud --ephemeral`` on a socket in a fresh private directory."""

    def __init__(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="milieu-inspect-")
        self.socket = os.path.join(self.directory, "milieu.sock")
        self.log = open(os.path.join(self.directory, "milieud.log"), "wb")
        self.process = subprocess.Popen([binary("milieud"), "--ephemeral", "--socket", self.socket], stderr=self.log)
        wait_until(lambda: os.path.exists(self.socket) or self.process.poll() is not None, what="milieud's socket")
        assert self.process.poll() is None, Path(self.log.name).read_text()

    def client(self) -> milieu.Client:
        return milieu.Client(self.socket)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class Inspector:
    """``milieu inspect --socket …``: its process, and the address it printed."""

    def __init__(self, daemon: Daemon) -> None:
        self.process = subprocess.Popen(
            [binary("milieu"), "inspect", "--socket", daemon.socket],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        match = URL_PATTERN.match(self.url)
        assert match, f"milieu inspect printed {self.url!r}; stderr: {self.stderr_now()}"
        self.port = int(match.group(1))
        self.token = match.group(2)

    def stderr_now(self) -> str:
        if self.process.poll() is None:
            return "(still running)"
        assert self.process.stderr is not None
        return self.process.stderr.read()

    def request(self, method: str, target: str, body: Optional[bytes] = None) -> Tuple[int, bytes]:
        """One HTTP request to the inspector; its status and body."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, target, body=body, headers={"Content-Type": "application/json"} if body else {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def target(self, path: str) -> str:
        return f"{path}?token={urllib.parse.quote(self.token)}"

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return status


class EventCapture:
    """Reads the inspector's event stream in a thread and keeps every byte it sends."""

    def __init__(self, inspector: Inspector) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", inspector.port, timeout=30)
        self.connection.request("GET", inspector.target("/events"))
        # The response takes the socket over (Connection: close), so the connection's close() would not end it.
        self.socket = self.connection.sock
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"
        self.chunks: List[bytes] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                self.chunks.append(line)
        except (OSError, ValueError):
            return

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode()

    def close(self) -> None:
        """Ends the stream: the inspector sees the close, and the reading thread its end."""
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.socket.close()
        self.connection.close()


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    running = Daemon()
    yield running
    running.stop()


@pytest.fixture
def inspector(daemon: Daemon) -> Iterator[Inspector]:
    running = Inspector(daemon)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1300,1000"]:
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium's sandbox refuses to run as root
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    yield driver
    driver.quit()


@pytest.fixture
def page(browser: webdriver.Chrome, inspector: Inspector) -> webdriver.Chrome:
    """The inspector's page, loaded, its event stream open and its first tree shown."""
    browser.get(inspector.url)
    WebDriverWait(browser, 15).until(lambda d: "live" in (d.find_element("id", "status").get_attribute("class") or ""))
    WebDriverWait(browser, 15).until(lambda d: d.find_elements("css selector", '[data-path="/App"]'))
    return browser

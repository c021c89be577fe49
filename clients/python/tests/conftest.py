"""Fixtures: real ``milieud`` processes on private sockets.

The binary is ``$MILIEUD`` (the project's test command sets it to the freshly
built daemon), else ``.build/debug/milieud`` of the repository.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional

import pytest

import milieu

REPO = Path(__file__).resolve().parents[3]
SPEC = REPO / "protocol" / "SPEC.md"


def milieud_binary() -> str:
    explicit = os.environ.get("MILIEUD")
    if explicit:
        return explicit
    built = REPO / ".build" / "debug" / "milieud"
    if built.exists():
        return str(built)
    raise RuntimeError("set MILIEUD to the milieud binary (or build it: swift build)")


def wait_until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Polls ``condition`` until it holds; fails the test if it does not within ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


class Daemon:
    """One ``milieud`` process; ``restart()`` starts a new instance on the same socket."""

    def __init__(self, directory: str, args: List[str], env: Optional[Dict[str, str]] = None) -> None:
        self.directory = directory
        self.socket = os.path.join(directory, "milieu.sock")
        self.args = args
        self.env = env
        self.log = os.path.join(directory, "milieud.log")
        self.process: Optional[subprocess.Popen[bytes]] = None

    def start(self, *, with_socket_option: bool = True, expect_socket: Optional[str] = None) -> None:
        # Each daemon starts from the scene: no state shared through the default data directory.
        persistence = [] if "--data-dir" in self.args else ["--ephemeral"]
        command = [milieud_binary(), *persistence, *self.args]
        if with_socket_option:
            command += ["--socket", self.socket]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stderr=log, env=self.env)
        target = expect_socket or self.socket
        wait_until(lambda: self._accepts(target), what=f"milieud to listen on {target}")

    def _accepts(self, path: str) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            pytest.fail(f"milieud exited with {self.process.returncode}: {Path(self.log).read_text()}")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            return True
        except OSError:
            return False
        finally:
            probe.close()

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    @contextlib.contextmanager
    def unreachable(self) -> Iterator[str]:
        """Moves the socket file aside: connections made already go on, new ones fail until the
        block ends. Yields the path the daemon can still be reached at."""
        aside = self.socket + ".aside"
        os.rename(self.socket, aside)
        try:
            yield aside
        finally:
            os.rename(aside, self.socket)

    def pause(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)


@pytest.fixture
def make_daemon() -> Iterator[Callable[..., Daemon]]:
    """Starts daemons with extra options: ``make_daemon("--history", "2")``; ephemeral unless
    given ``--data-dir``."""
    daemons: List[Daemon] = []

    def make(*args: str, env: Optional[Dict[str, str]] = None, start: bool = True) -> Daemon:
        # A short directory: socket paths must fit in sun_path (107 bytes).
        d = Daemon(tempfile.mkdtemp(prefix="mpy", dir="/tmp"), list(args), env)
        daemons.append(d)
        if start:
            d.start()
        return d

    yield make
    for d in daemons:
        d.stop()
        shutil.rmtree(d.directory, ignore_errors=True)


@pytest.fixture
def daemon(make_daemon: Callable[..., Daemon]) -> Daemon:
    return make_daemon()


@pytest.fixture
def client(daemon: Daemon) -> Iterator[milieu.Client]:
    with milieu.Client(daemon.socket, timeout=5.0) as c:
        yield c

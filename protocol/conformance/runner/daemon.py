"""Starting and stopping a fresh milieud for one case."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

CONFORMANCE_DIR = Path(__file__).resolve().parents[1]
SCENE_DIR = CONFORMANCE_DIR / "scenes"
REPO_BUILD = CONFORMANCE_DIR.parents[1] / ".build" / "debug" / "milieud"


def find_binary():
    """$MILIEUD, else the repository's debug build; None if neither exists."""
    candidate = os.environ.get("MILIEUD") or (str(REPO_BUILD) if REPO_BUILD.exists() else None)
    return candidate if candidate and os.access(candidate, os.X_OK) else None


class Daemon:
    """A milieud on a socket in a private temporary directory, logging to a file there."""

    def __init__(self, binary, scene=None, extra_args=(), start_timeout=5.0):
        self.dir = tempfile.mkdtemp(prefix="milieu-conf-")
        self.socket_path = os.path.join(self.dir, "milieu.sock")
        self.log_path = os.path.join(self.dir, "milieud.log")
        # Each case starts from the scene alone: nothing is kept across daemons.
        args = [binary, "--socket", self.socket_path, "--ephemeral", "--log-level", "debug"]
        if scene is not None:
            args += ["--scene", str(SCENE_DIR / scene)]
        args += list(extra_args)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self._wait_until_listening(start_timeout)

    def _wait_until_listening(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"milieud exited with status {self.process.returncode} at start:\n{self.log_tail()}")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.socket_path)
                return
            except (FileNotFoundError, ConnectionRefusedError):
                time.sleep(0.005)
            finally:
                probe.close()
        self.stop()
        raise RuntimeError(f"milieud did not listen on {self.socket_path} within {timeout} s:\n{self.log_tail()}")

    def crashed(self):
        """A description if the daemon died by itself with a failure status, else None."""
        status = self.process.poll()
        if status is None or status == 0:
            return None
        how = f"signal {-status}" if status < 0 else f"status {status}"
        return f"milieud exited with {how} during the case:\n{self.log_tail()}"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, "rb") as log:
                return b"".join(log.readlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

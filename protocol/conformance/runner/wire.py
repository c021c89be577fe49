"""One client connection to the daemon's Unix socket, read line by line.

Lines the daemon writes are decoded as strict JSON (RFC 8259): invalid UTF-8, a `\\r`,
NaN/Infinity or a duplicate member name is a protocol violation (`WireError`).
"""

import json
import select
import socket
import time

EOF = object()  # what `next_message` returns when the daemon closed the connection


class WireError(Exception):
    """The daemon wrote something that is not a well-formed line of JSON."""


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate member {json.dumps(key)}")
        seen[key] = value
    return seen


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


class WrittenInt(int):
    """An integer that remembers how it was written, for the `$text:` matcher."""

    text: str


class WrittenFloat(float):
    """A non-integer number that remembers how it was written (`1.50`, `-0`, `1e400`)."""

    text: str


def _written(kind):
    def make(text):
        number = kind(text)
        number.text = text
        return number

    return make


def parse_strict(text):
    """Parse one line as strict JSON; raise ValueError otherwise. Numbers keep their text."""
    return json.loads(
        text,
        object_pairs_hook=_no_duplicates,
        parse_constant=_no_constant,
        parse_int=_written(WrittenInt),
        parse_float=_written(WrittenFloat),
    )


class Connection:
    """A connected socket with a receive buffer; received lines are parsed JSON values."""

    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.sock.setblocking(False)
        self.buffer = b""
        self.peer_closed = False  # we read EOF (or a reset) from the daemon

    def send(self, data):
        """Send bytes. A daemon that already closed its end is noticed when reading."""
        self.sock.setblocking(True)
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            self.sock.setblocking(False)

    def _fill(self, timeout):
        """Read what arrives within `timeout` seconds; False when nothing did."""
        if self.peer_closed:
            return False
        ready, _, _ = select.select([self.sock], [], [], max(timeout, 0))
        if not ready:
            return False
        try:
            data = self.sock.recv(1 << 20)
        except BlockingIOError:
            return False
        except ConnectionResetError:
            data = b""
        if not data:
            self.peer_closed = True
        self.buffer += data
        return True

    def next_message(self, timeout):
        """The next line as (raw text, JSON value), EOF, or None if nothing came in time."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            if self.peer_closed:
                return EOF
            if not self._fill(deadline - time.monotonic()) and time.monotonic() >= deadline:
                return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            raise WireError(f"the daemon wrote invalid UTF-8: {line[:200]!r} ({error})") from None
        if text.endswith("\r"):
            raise WireError(f"the daemon wrote a \\r before \\n: {text[:200]}")
        try:
            return text, parse_strict(text)
        except ValueError as error:
            raise WireError(f"the daemon wrote a line that is not strict JSON ({error}): {text[:500]}") from None

    def has_unread_message(self):
        """Whether a whole line has already arrived (without waiting)."""
        while self._fill(0):
            pass
        return b"\n" in self.buffer

    def close_and_drain(self, timeout):
        """Half-close, then read until the daemon closes too, so that it has handled the close.

        Returns False if the daemon did not close its end within `timeout` seconds."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        deadline = time.monotonic() + timeout
        while not self.peer_closed and time.monotonic() < deadline:
            self._fill(deadline - time.monotonic())
            self.buffer = b""
        self.sock.close()
        return self.peer_closed

    def abort(self):
        self.sock.close()

"""The parts of the protocol that do no I/O, shared by the sync and the asyncio client:
framing, message encoding and classification, the reconnect policy, and the
bookkeeping that lets a watch resume across a reconnect with nothing lost or
repeated."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Sequence, Tuple, Union

from ._version import __version__
from .errors import MessageTooLarge, MilieuError, error_from_response
from .notifications import Notification, parse_notification

CLIENT_NAME = "milieu-py"


@dataclass(frozen=True)
class ReconnectPolicy:
    """How the client reconnects after the connection drops.

    It makes up to ``max_attempts`` attempts; before the first it waits
    ``initial_delay`` seconds, and each wait after that is ``multiplier`` times
    the one before, at most ``max_delay``. Pass ``reconnect=None`` to a client
    to turn reconnecting off.
    """

    max_attempts: int = 10
    initial_delay: float = 0.05
    max_delay: float = 2.0
    multiplier: float = 2.0

    def delays(self) -> Iterator[float]:
        """The wait before each attempt, in order."""
        delay = self.initial_delay
        for _ in range(self.max_attempts):
            yield delay
            delay = min(delay * self.multiplier, self.max_delay)


class Framer:
    """Splits the byte stream into lines of any length (SPEC §1.3)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline

    def feed(self, data: bytes) -> List[bytes]:
        """Adds ``data`` and returns the complete lines it finished, without ``\\n`` (or ``\\r\\n``)."""
        self._buffer += data
        lines: List[bytes] = []
        start = 0
        search = self._scanned
        while True:
            end = self._buffer.find(b"\n", search)
            if end < 0:
                break
            line = bytes(self._buffer[start:end])
            lines.append(line[:-1] if line.endswith(b"\r") else line)
            start = search = end + 1
        del self._buffer[:start]
        self._scanned = len(self._buffer)
        return lines


def encode_request(request_id: int, method: str, params: Dict[str, Any], max_line_bytes: int | None) -> bytes:
    """One request line. Raises ``ValueError`` for what strict JSON cannot hold (NaN, lone
    surrogates), ``TypeError`` for values JSON has no form for, and :class:`MessageTooLarge`
    for a line the daemon would refuse (and answer by closing the connection)."""
    text = json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params},
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    )
    line = text.encode("utf-8")
    if max_line_bytes is not None and len(line) > max_line_bytes:
        raise MessageTooLarge(
            -32010,
            f"Message too large: the request is {len(line)} bytes; the daemon's limit is {max_line_bytes}",
            {"kind": "MessageTooLarge", "limit": max_line_bytes},
        )
    return line + b"\n"


@dataclass(frozen=True)
class Response:
    """A response to the request ``id``: its ``result``, or its ``error``."""

    id: Any
    result: Any
    error: MilieuError | None


@dataclass(frozen=True)
class Note:
    """A notification addressed to watch ``watch``."""

    watch: int
    method: str
    params: Dict[str, Any]


Incoming = Union[Response, Note, None]


def classify(line: bytes) -> Incoming:
    """What a line from the daemon is; None for blank lines, batches (never sent by this client)
    and notifications this library cannot route."""
    if not line.strip():
        return None
    message = json.loads(line)
    if not isinstance(message, dict):
        return None
    if "result" in message or "error" in message:
        error = error_from_response(message["error"]) if "error" in message else None
        return Response(message.get("id"), message.get("result"), error)
    params = message.get("params")
    method = message.get("method")
    if isinstance(method, str) and isinstance(params, dict):
        watch = params.get("watch")
        version = params.get("version")
        if isinstance(watch, int) and isinstance(version, int):
            return Note(watch, method, params)
    return None


def initialize_params() -> Dict[str, Any]:
    """The params this client sends with ``initialize``."""
    return {"client": {"name": CLIENT_NAME, "version": __version__}, "protocolVersion": "1"}


class WatchState:
    """What a watch asked for, and what it has received, so that it can be made again.

    The client remembers, per watch, the last version it received a
    notification of and the notifications of that version. A connection can
    drop between two notifications of one version, so on reconnect the watch
    resumes with ``sinceVersion`` one below that version and drops the replayed
    notifications it already has: nothing is lost and nothing repeated.
    """

    def __init__(self, paths: Sequence[str], views: Sequence[str], lifecycle: bool) -> None:
        self.paths = tuple(paths)
        self.views = tuple(views)
        self.lifecycle = lifecycle
        self.instance: str | None = None
        """The daemon instance the watch was last made on; its versions are that instance's."""
        self.last_version = 0
        self._last_items: List[Dict[str, Any]] = []
        self._skip: List[Dict[str, Any]] = []
        self._skip_version = 0

    def params(self, since_version: int | None) -> Dict[str, Any]:
        """The params of a ``watch`` request for these targets."""
        params: Dict[str, Any] = {}
        if self.paths:
            params["paths"] = list(self.paths)
        if self.views:
            params["views"] = list(self.views)
        if self.lifecycle:
            params["lifecycle"] = True
        if since_version is not None:
            params["sinceVersion"] = since_version
        return params

    def bound(self, instance: str | None, version: int) -> None:
        """The watch was made on ``instance``: it covers versions after ``version``."""
        self.instance = instance
        self.last_version = version
        self._last_items = []
        self._skip = []

    def resume_point(self) -> Tuple[int, List[Dict[str, Any]]]:
        """The ``sinceVersion`` to resume from, and the notifications the replay will repeat."""
        if self._last_items:
            return self.last_version - 1, list(self._last_items)
        return self.last_version, []

    def resumed(self, repeated: List[Dict[str, Any]]) -> None:
        """The watch was made again from :meth:`resume_point`; ``repeated`` will be dropped."""
        self._skip = repeated
        self._skip_version = self.last_version

    def accept(self, method: str, params: Dict[str, Any]) -> Notification | None:
        """Records a notification; returns what to deliver (None for a repeat or an unknown method)."""
        version: int = params["version"]
        item = {k: v for k, v in params.items() if k != "watch"}
        item["method"] = method
        if self._skip:
            if version == self._skip_version and item == self._skip[0]:
                del self._skip[0]
                return None
            self._skip = []
        if version != self.last_version:
            self.last_version = version
            self._last_items = []
        self._last_items.append(item)
        return parse_notification(method, params)



class WatchBase:
    """What the sync and the asyncio watch have in common: their targets and bookkeeping."""

    def __init__(self, state: WatchState) -> None:
        self._state = state
        self.id: int | None = None
        """The daemon's id of this watch on the current connection (it changes on reconnect)."""

    @property
    def paths(self) -> Tuple[str, ...]:
        """The key paths watched."""
        return self._state.paths

    @property
    def views(self) -> Tuple[str, ...]:
        """The view paths watched."""
        return self._state.views

    @property
    def lifecycle(self) -> bool:
        """Whether object creation and destruction are watched."""
        return self._state.lifecycle

    @property
    def last_version(self) -> int:
        """The version of the last notification received (or the version the watch started at)."""
        return self._state.last_version

    def _receive(self, method: str, params: Dict[str, Any]) -> None:
        notification = self._state.accept(method, params)
        if notification is not None:
            self._push(notification)

    def _push(self, item: Union[Notification, MilieuError]) -> None:
        raise NotImplementedError


def names(value: Sequence[str] | str | None) -> List[str]:
    """The targets of a ``watch`` argument: one name, several, or none."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)

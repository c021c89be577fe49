"""The client's side of the protocol without I/O, shared by the sync and the asyncio client
(as h11 is for HTTP): framing, message encoding and classification, the reconnect policy,
the bookkeeping that lets a watch resume across a reconnect with nothing lost or repeated,
and :class:`Connection`, the state machine that both clients drive."""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generator, Generic, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union

from ._socket_path import socket_path
from ._version import __version__
from .errors import (
    Compacted, ConnectionLost, InternalError, MessageTooLarge, MilieuError, Resync, Timeout, error_from_response,
)
from .notifications import Notification, parse_notification
from .results import InitializeResult, RestoreReport

log = logging.getLogger("milieu")

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


@dataclass(frozen=True)
class Dropped:
    """``connection/dropped`` (SPEC §10.8): the daemon's last line before it closes the
    connection for not reading what it was sent; ``params`` says which limit it passed."""

    params: Dict[str, Any]

    def error(self) -> ConnectionLost:
        """Why the connection went, as the error the daemon's reason becomes."""
        said = str(self.params.get("message", "the daemon dropped the connection"))
        reason = self.params.get("reason")
        return ConnectionLost(f"{said} ({reason})" if isinstance(reason, str) else said)


Incoming = Union[Response, Note, Dropped, None]


def classify(line: bytes) -> Incoming:
    """What a line from the daemon is: a response, a watch's notification, ``connection/dropped``;
    None for blank lines, batches (never sent by this client) and notifications this library
    cannot route."""
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
    if method == "connection/dropped" and isinstance(params, dict):
        return Dropped(params)
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

    def __init__(
        self, paths: Sequence[str], views: Sequence[str], lifecycle: bool, commits: bool = False, print_changes: bool = False
    ) -> None:
        self.paths = tuple(paths)
        self.views = tuple(views)
        self.lifecycle = lifecycle
        self.commits = commits
        self.print_changes = print_changes
        self.not_mounted: Tuple[str, ...] = ()
        """The view targets no view was mounted at when the watch was last made."""
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
        if self.commits:
            params["commits"] = True
        if self.print_changes:
            params["printChanges"] = True
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
            if version == self._skip_version and _same_notification(item, self._skip[0]):
                del self._skip[0]
                return None
            self._skip = []
        if version != self.last_version:
            self.last_version = version
            self._last_items = []
        self._last_items.append(item)
        return parse_notification(method, params)


# What a replay may give differently for the same notification: a commit read back from the
# log after a restart has no cause (SPEC 9.19), and a replayed view's _printChanges line is its
# line as it is now (9.12).
_REPLAY_MAY_CHANGE = ("cause", "printChanges")


def _same_notification(a: Dict[str, Any], b: Dict[str, Any]) -> bool:
    """Whether ``a`` and ``b`` are one notification, sent again in a replay."""
    return {k: v for k, v in a.items() if k not in _REPLAY_MAY_CHANGE} == {
        k: v for k, v in b.items() if k not in _REPLAY_MAY_CHANGE
    }


class WatchBase:
    """What the sync and the asyncio watch have in common: their targets and bookkeeping.

    A driver's watch adds how notifications are queued and consumed (:meth:`_push`,
    :meth:`_finish`); the :class:`Connection` routes notifications to it and ends it.
    """

    def __init__(self, state: WatchState) -> None:
        self._state = state
        self._finished = False
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
    def commits(self) -> bool:
        """Whether every commit is watched (:class:`~milieu.notifications.DidCommit`)."""
        return self._state.commits

    @property
    def not_mounted(self) -> Tuple[str, ...]:
        """The view targets no view was mounted at when the watch was made (canonical): it
        delivers for them once one is."""
        return self._state.not_mounted

    @property
    def last_version(self) -> int:
        """The version of the last notification received (or the version the watch started at)."""
        return self._state.last_version

    def _receive(self, method: str, params: Dict[str, Any]) -> None:
        notification = self._state.accept(method, params)
        if notification is not None:
            self._push(notification)

    def _push(self, item: Union[Notification, MilieuError]) -> None:
        """Queues a notification (or an error to raise in its place) for the consumer."""
        raise NotImplementedError

    def _finish(self, error: MilieuError | None) -> None:
        """Ends the watch once its queue is consumed: cleanly, or raising ``error``."""
        raise NotImplementedError


def names(value: Sequence[str] | str | None) -> List[str]:
    """The targets of a ``watch`` argument: one name, several, or none."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


# --- plans: client operations as the requests they make ------------------------------

T = TypeVar("T")
W = TypeVar("W", bound=WatchBase)


@dataclass(frozen=True)
class Call:
    """One request that a :data:`Plan` asks its driver to make."""

    method: str
    params: Union[Dict[str, Any], Callable[[], Optional[Dict[str, Any]]]]
    """The params, or a function that gives them when the request is sent, on a ready connection
    (None: there is nothing to send, and the call's result is None)."""
    timeout: float | None = None
    """Seconds to wait for the response; None: the client's default."""
    hook: Callable[[Any], None] | None = None
    """Runs on the result as soon as it is received, before the next line is handled."""
    internal: bool = False
    """Part of making a connection: sent while connecting or reconnecting, and never retried."""


Plan = Generator[Call, Any, T]
"""A client operation as the requests it makes, without I/O: a generator that yields a
:class:`Call` for each request, is sent back its result (or thrown its error), and returns the
operation's result. The sync client carries plans out with blocking calls, the asyncio client
with coroutines (see :func:`advance`)."""


@dataclass(frozen=True)
class Done(Generic[T]):
    """A plan's end: the operation's result."""

    value: T


def advance(plan: Plan[T], result: Any = None, error: MilieuError | None = None) -> Union[Call, Done[T]]:
    """Resumes ``plan`` with the outcome of its last request (nothing, to start it): returns the
    next request it makes, or its result. An error the plan does not handle propagates."""
    try:
        return plan.throw(error) if error is not None else plan.send(result)
    except StopIteration as stop:
        return Done(stop.value)


class Deadline:
    """How long a call may wait: ``limit`` seconds from when it was made (None: no limit)."""

    def __init__(self, method: str, limit: float | None) -> None:
        self.method = method
        self.limit = limit
        self._end = None if limit is None else time.monotonic() + limit

    def remaining(self) -> float | None:
        """Seconds left (never below 0), or None for no limit."""
        return None if self._end is None else max(0.0, self._end - time.monotonic())

    def not_ready(self) -> Timeout:
        """The error of a call whose connection was not ready in time."""
        return Timeout(f"{self.method}: the connection was not ready within {self.limit} s")

    def no_response(self) -> Timeout:
        """The error of a call that was not answered in time."""
        return Timeout(f"{self.method}: no response within {self.limit} s")


class Pending:
    """A request waiting for its response; a driver's subclass says how its caller is woken."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.id = 0
        """The request's id, once :meth:`Connection.start` has given it one."""
        self.generation = 0
        """The connection it was sent on."""

    def complete(self, result: Any, error: MilieuError | None) -> None:
        """Hands the caller the ``result``, or the ``error`` to raise."""
        raise NotImplementedError


def _copy(error: ConnectionLost) -> ConnectionLost:
    """A new :class:`ConnectionLost` saying what ``error`` says, for the same cause."""
    copy = ConnectionLost(str(error))
    copy.__cause__ = error.__cause__
    return copy


# --- the connection state machine --------------------------------------------------

IDLE, CONNECTING, READY, RECONNECTING, CLOSED = "idle", "connecting", "ready", "reconnecting", "closed"


class Connection(Generic[W]):
    """The state of a client's connection to the daemon, and every decision about it, without I/O.

    It allocates request ids and keeps the requests waiting for responses; it routes each line
    received to its request or watch; it decides what a lost connection fails, whether to
    reconnect and when the client is closed for good; and it keeps the watches, so that
    :meth:`handshake` makes them again on the next connection.

    A driver opens connections (then calls :meth:`attached`), sends the lines :meth:`start`
    returns, feeds every line it reads to :meth:`receive`, reports a closed connection to
    :meth:`lost`, and carries out plans. Nothing here waits or is thread-safe: the sync client
    calls it holding its lock. ``changed`` is called on every change of :attr:`state`, for the
    driver to wake the calls waiting for it (:meth:`may_send`, :meth:`is_up`); ``new_watch``
    makes the driver's watch for a :class:`WatchState`.
    """

    def __init__(
        self,
        reconnect_policy: ReconnectPolicy | None,
        new_watch: Callable[[WatchState], W],
        changed: Callable[[], None],
    ) -> None:
        self.reconnect_policy = reconnect_policy
        self._new_watch = new_watch
        self._changed = changed
        self.state = IDLE
        self.server_info: InitializeResult | None = None
        """The result of ``initialize`` on the current connection."""
        self.reconnects = 0
        self.closing = False
        """Set by ``close()`` and ``shutdown``: a lost connection is then not restored."""
        self.failure: ConnectionLost | None = None
        """Why the client closed, when it was not closed on purpose."""
        self.generation = 0
        """Counts connections; what happens on an earlier one is ignored."""
        self._next_id = 0
        self._pending: Dict[int, Pending] = {}
        self._bound: Dict[int, W] = {}
        """The daemon's watch id → its watch, on the current connection."""
        self._watches: List[W] = []
        """The watches to make again on the next connection, in the order they were made."""
        self._last_unsolicited: MilieuError | None = None
        self._lost_generation = 0
        self._abandoned_watches: set[int] = set()
        """Ids of ``watch`` requests given up on, on the current connection: a late answer's
        watch is ended (:meth:`take_outgoing`)."""
        self._outgoing: List[bytes] = []

    @property
    def instance(self) -> str | None:
        """The daemon instance of the current connection."""
        return self.server_info["instance"] if self.server_info is not None else None

    def _become(self, state: str) -> None:
        self.state = state
        self._changed()

    # --- connecting --------------------------------------------------------------------

    def begin_connect(self) -> None:
        """``connect()`` starts; raises :class:`ConnectionLost` unless the client is new (or its
        connecting failed)."""
        if self.state != IDLE:
            raise ConnectionLost(f"the client is {self.state}; connect() works once")
        self._become(CONNECTING)

    def connect_failed(self) -> None:
        """``connect()`` failed: it may be tried again."""
        if self.state == CONNECTING:
            self._become(IDLE)

    def attached(self) -> int:
        """A new connection is open: returns its generation, by which the driver reports its lines
        and its end."""
        self.generation += 1
        self._last_unsolicited = None
        return self.generation

    def handshake(self) -> Plan[None]:
        """What a new connection starts with: ``initialize``, then each watch made again."""
        info: InitializeResult = yield Call("initialize", initialize_params(), internal=True)
        self.server_info = info
        restore = info.get("restore")
        if restore is not None:
            drops = "; ".join(f"{d['kind']} {d['name']}: {d['reason']}" for d in restore["dropped"][:5])
            log.warning("milieud could not restore %d of what it keeps when it started: %s", restore["droppedCount"], drops)
        for watch in list(self._watches):
            yield from self._rewatch(watch, restarted=watch._state.instance != info["instance"])

    def established(self) -> None:
        """The handshake is done: requests may be sent (unless the client is closing meanwhile)."""
        if self.closing or self.state not in (CONNECTING, RECONNECTING):
            return
        if self.state == RECONNECTING:
            self.reconnects += 1
        self._become(READY)

    def gave_up(self, last: MilieuError | None) -> None:
        """Every reconnect attempt failed, the last with ``last``: the client is closed for good."""
        if self.closing:
            return
        self.failure = ConnectionLost(f"the connection was lost and could not be restored: {last}")
        self._end()

    def close(self) -> bool:
        """``close()``: fails every request and ends every watch. False if the client was closed already."""
        if self.state == CLOSED and self.closing:
            return False
        self.closing = True
        pending = list(self._pending.values())
        self._pending.clear()
        self._bound.clear()
        self._end()
        for p in pending:
            p.complete(None, ConnectionLost("the client was closed"))
        return True

    def _end(self) -> None:
        """Closed for good: the watches end (each with its own copy of :attr:`failure`, if any:
        a raised exception keeps the frames it went through, so one shared with the client
        would keep every watch that raised it alive) and are let go."""
        self._become(CLOSED)
        watches, self._watches = self._watches, []
        for watch in watches:
            watch._finish(None if self.failure is None else _copy(self.failure))

    # --- requests ----------------------------------------------------------------------

    def may_send(self, internal: bool) -> bool:
        """Whether a request may be sent now (``internal``: one of the handshake's); raises
        :class:`ConnectionLost` when none ever will be."""
        if self.state == READY or (internal and self.state in (CONNECTING, RECONNECTING)):
            return True
        if self.state == CLOSED:
            raise ConnectionLost(str(self.failure or "the client is closed"))
        if self.state == IDLE:
            raise ConnectionLost("the client is not connected: call connect() or use it as a context manager")
        return False

    @property
    def last_word(self) -> MilieuError | None:
        """Why the daemon closed this connection, if its last line said so: an error with id
        null (``Forbidden``, ``LimitExceeded``), or ``connection/dropped`` (a slow consumer)."""
        return self._last_unsolicited

    def has_lost(self, generation: int) -> bool:
        """Whether the loss of connection ``generation`` has been reported (:meth:`lost`)."""
        return self._lost_generation >= generation

    def is_up(self, generation: int) -> bool:
        """Whether connection ``generation`` is the current one and its loss not yet reported."""
        return generation == self.generation and self.state == READY

    def start(self, pending: Pending) -> bytes | None:
        """Gives ``pending`` an id on the current connection and returns the line to send (None
        when its params say there is nothing to send).

        Raises what :func:`encode_request` raises, before anything is recorded.
        """
        call = pending.call
        params = call.params() if callable(call.params) else call.params
        if params is None:
            return None
        self._next_id += 1
        max_line = self.server_info["capabilities"].get("maxLineBytes") if self.server_info is not None else None
        line = encode_request(self._next_id, call.method, params, max_line)
        pending.id, pending.generation = self._next_id, self.generation
        self._pending[pending.id] = pending
        return line

    def abandon(self, pending: Pending) -> bool:
        """The caller stops waiting for ``pending`` (not sent, timed out, cancelled); returns whether
        it was still waiting. A late response to it is then dropped; one to a ``watch`` ends the
        watch it made, which nobody holds."""
        waiting = self._pending.pop(pending.id, None) is not None
        if waiting and pending.call.method == "watch":
            self._abandoned_watches.add(pending.id)
        return waiting

    def take_outgoing(self) -> List[bytes]:
        """Lines the client sends of its own accord, for the driver to write after :meth:`receive`:
        the ``unwatch`` of a watch whose answer came after it was given up on."""
        lines, self._outgoing = self._outgoing, []
        return lines

    # --- receiving ---------------------------------------------------------------------

    def receive(self, line: bytes) -> None:
        """Handles a line from the daemon: completes its request, or delivers its notification."""
        try:
            message = classify(line)
        except ValueError:
            log.warning("ignoring a line that is not JSON: %.200r", line)
            return
        if not (isinstance(message, Response) and message.id is None):
            self._last_unsolicited = None  # the last word is the last line only
        if isinstance(message, Response):
            self._respond(message)
        elif isinstance(message, Note):
            watch = self._bound.get(message.watch)
            if watch is not None:
                watch._receive(message.method, message.params)
        elif isinstance(message, Dropped):
            self._last_unsolicited = message.error()

    def _respond(self, response: Response) -> None:
        if response.id is None:
            self._last_unsolicited = response.error  # the daemon's last word before closing
        pending = self._pending.pop(response.id, None) if isinstance(response.id, int) else None
        if pending is None:
            if isinstance(response.id, int) and response.id in self._abandoned_watches:
                self._abandoned_watches.discard(response.id)
                watch = response.result.get("watch") if isinstance(response.result, dict) else None
                if isinstance(watch, int):
                    self._next_id += 1  # its answer, to an id nobody waits for, is dropped
                    self._outgoing.append(encode_request(self._next_id, "unwatch", {"watch": watch}, None))
            return
        error = response.error
        if error is None and pending.call.hook is not None:
            try:
                pending.call.hook(response.result)
            except (KeyError, TypeError) as e:
                error = InternalError(-32603, f"malformed result {response.result!r}: {e}", {"kind": "InternalError"})
        pending.complete(response.result, error)

    def lost(self, generation: int) -> bool:
        """Connection ``generation`` closed: the requests sent on it fail; returns whether to
        reconnect. Without a reconnect (no policy, or closing) the client is closed for good."""
        if generation != self.generation:
            return False
        self._lost_generation = generation
        self._changed()  # a send that failed waits for this, to give the daemon's reason
        cause = self._last_unsolicited
        said = f": milieud said {cause}" if cause is not None else ""
        failed = [p for p in self._pending.values() if p.generation == generation]
        for p in failed:
            del self._pending[p.id]
        self._bound.clear()
        self._abandoned_watches.clear()  # the daemon ends a connection's watches with it
        self._outgoing.clear()
        for p in failed:
            if cause is not None and self.state != READY:
                p.complete(None, cause)  # the daemon refused (or dropped) the connection: its reason is the answer
                continue
            error = ConnectionLost(f"the connection was lost before the response arrived{said}")
            error.__cause__ = cause
            p.complete(None, error)
        if self.state != READY:
            return False  # a handshake was under way: its failed request ends that attempt
        if not self.closing and self.reconnect_policy is not None:
            self._become(RECONNECTING)
            return True
        if not self.closing:
            self.failure = ConnectionLost(f"the connection to the daemon was lost{said}")
            self.failure.__cause__ = cause
        self._end()
        return False

    # --- watches -----------------------------------------------------------------------

    def watch(self, state: WatchState, since_version: int | None, timeout: float | None) -> Plan[W]:
        """``watch``: the driver's watch of ``state``, bound before its first notification."""
        watch = self._new_watch(state)
        yield Call(
            "watch", state.params(since_version), timeout, hook=lambda r: self._bind(watch, r, since=since_version)
        )
        return watch

    def unwatch(self, watch: W, timeout: float | None) -> Plan[None]:
        """``unwatch``: ends ``watch``, by the id it has on the connection the request is sent on
        (a call made while reconnecting waits for the new connection, where ids differ)."""
        if not watch._finished:
            yield Call("unwatch", lambda: self._unwatch_params(watch), timeout, hook=lambda _: self._unbind(watch))

    def _unwatch_params(self, watch: W) -> Dict[str, Any] | None:
        """The params that unwatch ``watch`` on the current connection; None, and the watch ends
        here, when it is not bound there (it ended while reconnecting)."""
        if watch.id is not None and self._bound.get(watch.id) is watch:
            return {"watch": watch.id}
        self._unbind(watch)
        return None

    def shutdown(self, timeout: float | None) -> Plan[None]:
        """``shutdown``: stops the daemon; the connection it then closes is not restored."""
        yield Call("shutdown", {}, timeout, hook=self._stopping)

    def _stopping(self, _: Any) -> None:
        """On the ``shutdown`` response: the daemon closes the connection; no reconnecting."""
        self.closing = True

    def _rewatch(self, watch: W, restarted: bool) -> Plan[None]:
        """Makes ``watch`` again on the new connection: resumed with ``sinceVersion`` when the
        daemon is the same instance, else (or when its history is too short) afresh, with a
        :class:`Resync` queued before its first new notification. A watch that cannot be made
        again ends with the error; a lost connection or a timeout fails the handshake."""
        state = watch._state
        reason, oldest = "restarted", None
        try:
            if not restarted:
                since, repeated = state.resume_point()
                try:
                    yield Call(
                        "watch", state.params(since), internal=True,
                        hook=lambda r: self._bind(watch, r, repeated=repeated),
                    )
                    return
                except Compacted as e:
                    reason, oldest = "compacted", e.oldest
            yield Call(
                "watch", state.params(None), internal=True, hook=lambda r: self._bind(watch, r, resync=(reason, oldest))
            )
        except (ConnectionLost, Timeout):
            raise
        except MilieuError as e:
            self._lose(watch, e)

    def _bind(
        self,
        watch: W,
        result: Any,
        *,
        repeated: List[Dict[str, Any]] | None = None,
        resync: Tuple[str, int | None] | None = None,
        since: int | None = None,
    ) -> None:
        """On a ``watch`` response, before the notifications that follow it: routes them to ``watch``."""
        watch_id: int = result["watch"]
        version: int = result["version"]
        self._bound[watch_id] = watch
        if watch not in self._watches:
            self._watches.append(watch)
        watch.id = watch_id
        watch._state.not_mounted = tuple(result.get("notMounted", ()))
        if repeated is not None:
            watch._state.resumed(repeated)
        else:
            watch._state.bound(self.instance, version if since is None else since)
        if resync is not None:
            watch._push(Resync(resync[0], version, oldest=resync[1]))

    def _unbind(self, watch: W) -> None:
        """On an ``unwatch`` response: ``watch`` ends cleanly."""
        if watch.id is not None and self._bound.get(watch.id) is watch:
            del self._bound[watch.id]
        if watch in self._watches:
            self._watches.remove(watch)
        watch._finish(None)

    def _lose(self, watch: W, error: MilieuError) -> None:
        """``watch`` could not be made again: it raises a failed :class:`Resync`, then ``error``."""
        if watch in self._watches:
            self._watches.remove(watch)
        watch._push(Resync("failed", None, error=error))
        watch._finish(error)


class ClientBase(Generic[W]):
    """What the sync and the asyncio client have in common: their options, and what they tell
    of the :class:`Connection` they drive."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        timeout: float | None,
        reconnect: ReconnectPolicy | None,
        new_watch: Callable[[WatchState], W],
        changed: Callable[[], None],
    ) -> None:
        self.path = socket_path(path)
        self.timeout = timeout
        """The default seconds each call waits for its response (None: no limit)."""
        self._core = Connection(reconnect, new_watch, changed)

    @property
    def reconnect_policy(self) -> ReconnectPolicy | None:
        """How the client reconnects; None: a dropped connection is final."""
        return self._core.reconnect_policy

    @reconnect_policy.setter
    def reconnect_policy(self, policy: ReconnectPolicy | None) -> None:
        self._core.reconnect_policy = policy

    @property
    def server_info(self) -> InitializeResult | None:
        """The result of ``initialize`` on the current connection."""
        return self._core.server_info

    @property
    def restore(self) -> RestoreReport | None:
        """What the daemon could not bring back when it started (``initialize``'s ``restore``), or
        None when it dropped nothing; the client also logs it, at warning, as it connects."""
        info = self._core.server_info
        return info.get("restore") if info is not None else None

    @property
    def reconnects(self) -> int:
        """How many times the client has reconnected."""
        return self._core.reconnects

    @property
    def connected(self) -> bool:
        """True while the connection is up and ready for requests."""
        return self._core.state == READY

    @property
    def instance(self) -> str | None:
        """The daemon instance the client is connected to: the same across restarts while its versions continue."""
        return self._core.instance

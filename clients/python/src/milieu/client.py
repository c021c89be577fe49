"""The synchronous client.

Threads: one reader thread per connection reads every line from the daemon. It
hands each response to the caller waiting for that request id, and each
notification to the :class:`Watch` whose daemon watch id it carries. Any number
of threads may call the client's methods at once: writes are serialised by a
lock and every caller waits only for its own response. A watch may be iterated
from any thread; each notification goes to one consumer. When the connection
drops, the reader thread that saw it reconnects (see :class:`ReconnectPolicy`)
while callers wait, up to their timeouts, for the connection to be ready again.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, List, Mapping, Sequence, Union

from . import ops
from ._core import (
    Framer, Note, ReconnectPolicy, Response, WatchBase, WatchState, classify, encode_request, initialize_params,
    names,
)
from ._socket_path import socket_path
from .errors import Compacted, ConnectionLost, InternalError, MilieuError, Resync, Timeout
from .notifications import Notification
from .results import (
    CallResult, InitializeResult, MountResult, RegisterResult, TransactionResult, TreeResult, TypesResult,
    VersionResult,
)

if TYPE_CHECKING:  # typing_extensions is needed by type checkers only, not at run time
    from typing_extensions import Unpack

log = logging.getLogger("milieu")

_IDLE, _CONNECTING, _READY, _RECONNECTING, _CLOSED = "idle", "connecting", "ready", "reconnecting", "closed"
_RECV_BYTES = 65536

_Item = Union[Notification, MilieuError]


class _Pending:
    """A request waiting for its response; ``hook`` runs in the reader thread before the next line."""

    def __init__(self, generation: int, hook: Callable[[Any], None] | None) -> None:
        self.generation = generation
        self.hook = hook
        self.done = threading.Event()
        self.result: Any = None
        self.error: MilieuError | None = None

    def complete(self, result: Any, error: MilieuError | None) -> None:
        self.result = result
        self.error = error
        self.done.set()


class Watch(WatchBase):
    """The notifications of one ``watch`` request.

    Iterate it (``for n in watch``) or call :meth:`next`. Notifications are
    typed (:mod:`milieu.notifications`). After a reconnect that could not
    resume exactly, iteration raises :class:`~milieu.errors.Resync` once; start
    iterating again to go on. Iteration stops after :meth:`close` (or
    ``client.unwatch``, or closing the client) once the notifications already
    received are consumed; it raises :class:`~milieu.errors.ConnectionLost` when
    the connection is gone for good.
    """

    def __init__(self, client: Client, state: WatchState) -> None:
        super().__init__(state)
        self._client = client
        self._cond = threading.Condition()
        self._items: Deque[_Item] = deque()
        self._finished = False
        self._error: MilieuError | None = None

    def next(self, timeout: float | None = None) -> Notification:
        """The next notification; waits up to ``timeout`` seconds (None: no limit).

        Raises :class:`~milieu.errors.Timeout` when none came in time,
        ``StopIteration`` when the watch is closed and drained, and
        :class:`~milieu.errors.Resync` or :class:`~milieu.errors.ConnectionLost`
        as described in the class documentation.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._items:
                if self._finished:
                    if self._error is not None:
                        raise self._error.with_traceback(None)
                    raise StopIteration
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise Timeout(f"no notification for watch {self.id} within {timeout} s")
                self._cond.wait(remaining)
            item = self._items.popleft()
        if isinstance(item, MilieuError):
            raise item
        return item

    def __iter__(self) -> Watch:
        return self

    def __next__(self) -> Notification:
        return self.next()

    def close(self, *, timeout: float | None = None) -> None:
        """Ends the watch (``unwatch``); notifications already received can still be read."""
        self._client.unwatch(self, timeout=timeout)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._finished:
            try:
                self.close()
            except ConnectionLost:
                self._finish(None)

    # Called by the client, from the reader thread or the reconnecting thread.

    def _push(self, item: _Item) -> None:
        with self._cond:
            self._items.append(item)
            self._cond.notify_all()

    def _finish(self, error: MilieuError | None) -> None:
        with self._cond:
            if not self._finished:
                self._finished = True
                self._error = error
            self._cond.notify_all()


class Client:
    """A connection to ``milieud``, with every request as a method.

    ``path`` is the socket (default: :func:`milieu.socket_path`); ``timeout``
    the default seconds each call waits for its response (None: no limit;
    every method also takes ``timeout=``); ``reconnect`` the
    :class:`ReconnectPolicy` (None: a dropped connection is final).

    Nothing happens until :meth:`connect` (or ``with Client() as c:``), which
    also sends ``initialize``. Views mounted through a connection are unmounted
    by the daemon when that connection drops, reconnect or not, unless mounted
    with ``retain=True``.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        timeout: float | None = 10.0,
        reconnect: ReconnectPolicy | None = ReconnectPolicy(),
    ) -> None:
        self.path = socket_path(path)
        self.timeout = timeout
        self.reconnect_policy = reconnect
        self.server_info: InitializeResult | None = None
        """The result of ``initialize`` on the current connection."""
        self.reconnects = 0
        """How many times the client has reconnected."""
        self._lock = threading.Condition()
        self._state = _IDLE
        self._failure: MilieuError | None = None
        self._closing = False
        self._sock: socket.socket | None = None
        self._reader: threading.Thread | None = None
        self._generation = 0
        self._next_id = 0
        self._pending: Dict[int, _Pending] = {}
        self._bound: Dict[int, Watch] = {}
        self._watches: List[Watch] = []
        self._write_lock = threading.Lock()
        self._last_unsolicited: MilieuError | None = None

    # --- connection ------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the connection is up and ready for requests."""
        with self._lock:
            return self._state == _READY

    @property
    def instance(self) -> str | None:
        """The daemon instance (new at every daemon start) the client is connected to."""
        info = self.server_info
        return info["instance"] if info is not None else None

    def connect(self) -> Client:
        """Connects and sends ``initialize``.

        Raises :class:`ConnectionLost` if the daemon is not there (``connect()`` may then be
        called again); a client connects once: after :meth:`close`, make a new one.
        """
        with self._lock:
            if self._state != _IDLE:
                raise ConnectionLost(f"the client is {self._state}; connect() works once")
            self._state = _CONNECTING
        try:
            self._attach(self._open())
            self.server_info = self._request("initialize", initialize_params(), None, internal=True)
        except BaseException:
            with self._lock:
                if self._state == _CONNECTING:
                    self._state = _IDLE  # connect() may be tried again
            self._drop_socket()
            raise
        with self._lock:
            if self._state == _CONNECTING:
                self._state = _READY
            self._lock.notify_all()
        return self

    def close(self) -> None:
        """Closes the connection. Pending calls fail with :class:`ConnectionLost`; watches end."""
        with self._lock:
            if self._state == _CLOSED and self._closing:
                return
            self._closing = True
            self._state = _CLOSED
            sock, reader = self._sock, self._reader
            pending = list(self._pending.values())
            self._pending.clear()
            watches, self._watches = self._watches, []
            self._bound.clear()
            self._lock.notify_all()
        for p in pending:
            p.complete(None, ConnectionLost("the client was closed"))
        for w in watches:
            w._finish(None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if reader is not None and reader is not threading.current_thread():
            reader.join(5.0)

    def __enter__(self) -> Client:
        with self._lock:
            idle = self._state == _IDLE
        return self.connect() if idle else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path)
        except OSError as e:
            sock.close()
            raise ConnectionLost(f"cannot connect to {self.path}: {e}") from e
        sock.settimeout(None)
        return sock

    def _attach(self, sock: socket.socket) -> None:
        with self._lock:
            self._generation += 1
            generation = self._generation
            self._sock = sock
            self._last_unsolicited = None
            reader = threading.Thread(
                target=self._read_loop, args=(sock, generation), name=f"milieu-reader-{generation}", daemon=True
            )
            self._reader = reader
        reader.start()

    def _read_loop(self, sock: socket.socket, generation: int) -> None:
        framer = Framer()
        try:
            while True:
                data = sock.recv(_RECV_BYTES)
                if not data:
                    break
                for line in framer.feed(data):
                    self._dispatch(line)
        except OSError:
            pass
        finally:
            reconnect = self._on_disconnect(generation)
            sock.close()
        if reconnect:
            self._reconnect()

    def _dispatch(self, line: bytes) -> None:
        try:
            message = classify(line)
        except ValueError:
            log.warning("ignoring a line that is not JSON: %.200r", line)
            return
        if isinstance(message, Response):
            with self._lock:
                pending = self._pending.pop(message.id, None) if isinstance(message.id, int) else None
                if message.id is None:
                    self._last_unsolicited = message.error
            if pending is None:
                return
            error = message.error
            if error is None and pending.hook is not None:
                try:
                    pending.hook(message.result)
                except (KeyError, TypeError) as e:
                    error = InternalError(-32603, f"malformed result {message.result!r}: {e}", {"kind": "InternalError"})
            pending.complete(message.result, error)
        elif isinstance(message, Note):
            with self._lock:
                watch = self._bound.get(message.watch)
            if watch is not None:
                watch._receive(message.method, message.params)

    def _on_disconnect(self, generation: int) -> bool:
        """Fails the calls in flight on that connection; returns whether to reconnect."""
        with self._lock:
            if generation != self._generation:
                return False
            failed = [i for i, p in self._pending.items() if p.generation == generation]
            pending = [self._pending.pop(i) for i in failed]
            self._bound.clear()
            cause = self._last_unsolicited
            reconnect = False
            watches: List[Watch] = []
            if self._state == _READY:
                if not self._closing and self.reconnect_policy is not None:
                    self._state = _RECONNECTING
                    reconnect = True
                else:
                    self._state = _CLOSED
                    if not self._closing:
                        self._failure = ConnectionLost("the connection to the daemon was lost")
                        self._failure.__cause__ = cause
                    watches = list(self._watches)
            failure = self._failure
            self._lock.notify_all()
        for p in pending:
            error = ConnectionLost("the connection was lost before the response arrived")
            error.__cause__ = cause
            p.complete(None, error)
        for w in watches:
            w._finish(failure)
        return reconnect

    # --- reconnecting ----------------------------------------------------------------

    def _reconnect(self) -> None:
        assert self.reconnect_policy is not None
        last: MilieuError | None = None
        for delay in self.reconnect_policy.delays():
            with self._lock:
                end = time.monotonic() + delay
                while not self._closing and time.monotonic() < end:
                    self._lock.wait(end - time.monotonic())
                if self._closing:
                    return
            try:
                self._attach(self._open())
                self._handshake()
            except MilieuError as e:
                log.info("milieu: reconnect attempt failed: %s", e)
                last = e
                self._drop_socket()
                continue
            with self._lock:
                if self._closing:
                    return
                self._state = _READY
                self.reconnects += 1
                self._lock.notify_all()
            log.info("milieu: reconnected to %s", self.path)
            return
        failure = ConnectionLost(f"the connection was lost and could not be restored: {last}")
        with self._lock:
            if self._closing:
                return
            self._state = _CLOSED
            self._failure = failure
            watches, self._watches = self._watches, []
            self._lock.notify_all()
        for w in watches:
            w._finish(failure)

    def _drop_socket(self) -> None:
        with self._lock:
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _handshake(self) -> None:
        info: InitializeResult = self._request("initialize", initialize_params(), None, internal=True)
        self.server_info = info
        with self._lock:
            watches = list(self._watches)
        for watch in watches:
            self._rewatch(watch, watch._state.instance != info["instance"])

    def _rewatch(self, watch: Watch, restarted: bool) -> None:
        """Makes ``watch`` again on the new connection: resumed with ``sinceVersion`` when the
        daemon is the same instance, else (or when its history is too short) afresh, with a
        :class:`Resync` queued before its first new notification."""
        state = watch._state
        reason, oldest = "restarted", None
        if not restarted:
            since, repeated = state.resume_point()
            try:
                self._request(
                    "watch", state.params(since), None, internal=True,
                    hook=lambda r: self._bind(watch, r, repeated=repeated),
                )
                return
            except Compacted as e:
                reason, oldest = "compacted", e.oldest
            except (ConnectionLost, Timeout):
                raise
            except MilieuError as e:
                self._lose(watch, e)
                return
        try:
            self._request(
                "watch", state.params(None), None, internal=True,
                hook=lambda r: self._bind(watch, r, resync=(reason, oldest)),
            )
        except (ConnectionLost, Timeout):
            raise
        except MilieuError as e:
            self._lose(watch, e)

    def _lose(self, watch: Watch, error: MilieuError) -> None:
        with self._lock:
            if watch in self._watches:
                self._watches.remove(watch)
        watch._push(Resync("failed", None, error=error))
        watch._finish(error)

    def _bind(
        self,
        watch: Watch,
        result: Any,
        *,
        repeated: List[Dict[str, Any]] | None = None,
        resync: tuple[str, int | None] | None = None,
        since: int | None = None,
    ) -> None:
        """Runs in the reader thread on a ``watch`` response, before the notifications that follow it."""
        watch_id: int = result["watch"]
        version: int = result["version"]
        with self._lock:
            self._bound[watch_id] = watch
            if watch not in self._watches:
                self._watches.append(watch)
        watch.id = watch_id
        if repeated is not None:
            watch._state.resumed(repeated)
        else:
            watch._state.bound(self.instance, version if since is None else since)
        if resync is not None:
            watch._push(Resync(resync[0], version, oldest=resync[1]))

    # --- requests --------------------------------------------------------------------

    def request(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """Sends any request and returns its result (or raises its typed error)."""
        return self._request(method, dict(params or {}), timeout)

    def _request(
        self,
        method: str,
        params: Dict[str, Any],
        timeout: float | None,
        *,
        hook: Callable[[Any], None] | None = None,
        internal: bool = False,
    ) -> Any:
        limit = self.timeout if timeout is None else timeout
        deadline = None if limit is None else time.monotonic() + limit
        while True:
            with self._lock:
                self._wait_ready(method, limit, deadline, internal)
                self._next_id += 1
                request_id = self._next_id
                generation = self._generation
                pending = _Pending(generation, hook)
                sock = self._sock
                info = self.server_info
                max_line = info["capabilities"].get("maxLineBytes") if info is not None else None
                line = encode_request(request_id, method, params, max_line)
                self._pending[request_id] = pending
            assert sock is not None
            try:
                with self._write_lock:
                    sock.sendall(line)
                break
            except OSError as e:
                # Not sent, so not executed: once the reader has seen the connection go, the
                # request waits for the next connection and is sent again.
                with self._lock:
                    self._pending.pop(request_id, None)
                    while self._generation == generation and self._state == _READY:
                        self._lock.wait(_remaining(deadline, method, limit))
                if internal or self.reconnect_policy is None:
                    raise ConnectionLost(f"{method}: could not send the request: {e}") from e
        if not pending.done.wait(None if deadline is None else max(0.0, deadline - time.monotonic())):
            with self._lock:
                abandoned = self._pending.pop(request_id, None) is not None
            if abandoned:
                raise Timeout(f"{method}: no response within {limit} s")
            pending.done.wait()
        if pending.error is not None:
            raise pending.error
        return pending.result

    def _wait_ready(self, method: str, limit: float | None, deadline: float | None, internal: bool) -> None:
        """Waits, holding the lock, until requests may be sent."""
        while not (self._state == _READY or (internal and self._state in (_CONNECTING, _RECONNECTING))):
            if self._state == _CLOSED:
                raise ConnectionLost(str(self._failure or "the client is closed"))
            if self._state == _IDLE:
                raise ConnectionLost("the client is not connected: call connect() or use it in a with block")
            self._lock.wait(_remaining(deadline, method, limit))

    def initialize(self, *, timeout: float | None = None) -> InitializeResult:
        """``initialize`` again (``connect`` sends it already): the daemon, its capabilities, instance, version."""
        result: InitializeResult = self._request("initialize", initialize_params(), timeout)
        return result

    def types(self, *, timeout: float | None = None) -> TypesResult:
        """``schema/types``: every model type."""
        result: TypesResult = self._request("schema/types", {}, timeout)
        return result

    def register(self, types: Sequence[Mapping[str, Any]], *, timeout: float | None = None) -> RegisterResult:
        """``schema/register``: declares model types, all or nothing."""
        result: RegisterResult = self._request("schema/register", {"types": [dict(t) for t in types]}, timeout)
        return result

    def get(self, path: str, *, timeout: float | None = None) -> Any:
        """``graph/get``: a value, an object snapshot or a view snapshot."""
        return self._request("graph/get", {"path": path}, timeout)

    def set(self, path: str, value: Any, if_version: int | None = None, *, timeout: float | None = None) -> VersionResult:
        """``graph/set``: writes ``value`` at ``path`` (only if its target is at ``if_version``)."""
        result: VersionResult = self._op(ops.set(path, value, if_version), timeout)
        return result

    def call(self, path: str, *args: Any, timeout: float | None = None) -> CallResult:
        """``graph/call``: runs the action at ``path`` with positional ``args``."""
        result: CallResult = self._op(ops.call(path, *args), timeout)
        return result

    def transaction(self, operations: Sequence[ops.Op | Mapping[str, Any]], *, timeout: float | None = None) -> TransactionResult:
        """``graph/transaction``: the ops (see :mod:`milieu.ops`) all or nothing, as one version."""
        result: TransactionResult = self._request(
            "graph/transaction", {"ops": [dict(op) for op in operations]}, timeout
        )
        return result

    def mount(
        self, declaration: Mapping[str, Any] | None = None, *, timeout: float | None = None, **fields: Unpack[ops.ViewFields]
    ) -> MountResult:
        """``view/mount``: a view declaration in wire form, or keyword fields (see :func:`milieu.ops.declaration`)."""
        result: MountResult = self._op(ops.mount(declaration, **fields), timeout)
        return result

    def unmount(self, path: str, *, timeout: float | None = None) -> VersionResult:
        """``view/unmount``: unmounts the view at ``path`` and its subtree."""
        result: VersionResult = self._op(ops.unmount(path), timeout)
        return result

    def provide(
        self,
        path: str,
        environment_objects: Sequence[str] | None = None,
        environment: Mapping[str, Any] | None = None,
        withdraw: Sequence[str] | None = None,
        *,
        timeout: float | None = None,
    ) -> VersionResult:
        """``view/provide``: adds, replaces or withdraws what the view at ``path`` provides."""
        result: VersionResult = self._op(ops.provide(path, environment_objects, environment, withdraw), timeout)
        return result

    def tree(self, path: str | None = None, *, timeout: float | None = None) -> TreeResult:
        """``view/tree``: the views from ``path`` (default ``/App``)."""
        result: TreeResult = self._request("view/tree", {} if path is None else {"path": path}, timeout)
        return result

    def watch(
        self,
        paths: Sequence[str] | str | None = None,
        views: Sequence[str] | str | None = None,
        lifecycle: bool = False,
        *,
        since_version: int | None = None,
        timeout: float | None = None,
    ) -> Watch:
        """``watch``: returns a :class:`Watch` that yields the notifications for these targets.

        With ``since_version`` the daemon first replays what happened after that version.
        """
        state = WatchState(names(paths), names(views), lifecycle)
        watch = Watch(self, state)
        self._request(
            "watch", state.params(since_version), timeout, hook=lambda r: self._bind(watch, r, since=since_version)
        )
        return watch

    def unwatch(self, watch: Watch, *, timeout: float | None = None) -> None:
        """``unwatch``: ends ``watch``; its iteration stops after the notifications already received."""
        if watch._finished:
            return
        self._request("unwatch", {"watch": watch.id}, timeout, hook=lambda _: self._unbind(watch))

    def _unbind(self, watch: Watch) -> None:
        with self._lock:
            if watch.id is not None:
                self._bound.pop(watch.id, None)
            if watch in self._watches:
                self._watches.remove(watch)
        watch._finish(None)

    def shutdown(self, *, timeout: float | None = None) -> None:
        """``shutdown``: stops the daemon; the client then closes (it does not reconnect)."""
        self._request("shutdown", {}, timeout, hook=lambda _: self._shutting_down())
        self.close()

    def _shutting_down(self) -> None:
        with self._lock:
            self._closing = True

    def discover(self, *, timeout: float | None = None) -> Dict[str, Any]:
        """``rpc.discover``: the OpenRPC document of the protocol."""
        result: Dict[str, Any] = self._request("rpc.discover", {}, timeout)
        return result

    def _op(self, op: ops.Op, timeout: float | None) -> Any:
        return self._request(op["method"], op["params"], timeout)


def _remaining(deadline: float | None, method: str, limit: float | None) -> float | None:
    """Seconds left until ``deadline`` (None: no limit); raises :class:`Timeout` when none are."""
    if deadline is None:
        return None
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise Timeout(f"{method}: the connection was not ready within {limit} s")
    return remaining

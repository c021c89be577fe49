"""The synchronous client: a driver of :class:`milieu._core.Connection` with threads.

Threads: one reader thread per connection reads every line from the daemon and hands it to
the connection state machine, which completes the request waiting for that id or delivers the
notification to its :class:`Watch`. Any number of threads may call the client's methods at
once: writes are serialised by a lock and every caller waits only for its own response. The
state machine is used only while holding the client's lock. A watch may be iterated from any
thread; each notification goes to one consumer. When the connection drops, the reader thread
that saw it reconnects (see :class:`ReconnectPolicy`) while callers wait, up to their
timeouts, for the connection to be ready again.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Deque, TypeVar, Union

from . import _methods as methods
from ._core import (
    CLOSED, IDLE, Call, ClientBase, Connection, Deadline, Done, Framer, Pending, Plan, ReconnectPolicy, WatchBase,
    WatchState, advance,
)
from ._trust import check_path, check_peer
from .errors import ConnectionLost, MilieuError, Timeout
from .notifications import Notification

if TYPE_CHECKING:  # typing_extensions is needed by type checkers only, not at run time
    from typing_extensions import Concatenate, ParamSpec

    P = ParamSpec("P")

log = logging.getLogger("milieu")

T = TypeVar("T")

_RECV_BYTES = 65536

_Item = Union[Notification, MilieuError]


class _Pending(Pending):
    """A request whose caller blocks until it completes."""

    def __init__(self, call: Call) -> None:
        super().__init__(call)
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


def sync_method(plan: Callable[Concatenate[Connection[Watch], P], Plan[T]]) -> Callable[Concatenate[Client, P], T]:
    """A blocking method of :class:`Client` that carries out ``plan`` (see :mod:`milieu._methods`)."""

    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(plan(self._core, *args, **kwargs))

    return methods.describe(method, plan, "Watch")


class Client(ClientBase[Watch]):
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
        self._lock = threading.Condition()
        super().__init__(path, timeout, reconnect, lambda state: Watch(self, state), self._lock.notify_all)
        self._sock: socket.socket | None = None
        self._reader: threading.Thread | None = None
        self._write_lock = threading.Lock()

    # --- connection ------------------------------------------------------------------

    def connect(self) -> Client:
        """Connects and sends ``initialize``.

        Raises :class:`ConnectionLost` if the daemon is not there (``connect()`` may then be
        called again); a client connects once: after :meth:`close`, make a new one.
        """
        with self._lock:
            self._core.begin_connect()
        try:
            self._attach(self._open())
            self._run(self._core.handshake())
        except BaseException:
            with self._lock:
                self._core.connect_failed()
            self._drop_socket()
            raise
        with self._lock:
            self._core.established()
        return self

    def close(self) -> None:
        """Closes the connection. Pending calls fail with :class:`ConnectionLost`; watches end."""
        with self._lock:
            if not self._core.close():
                return
            reader = self._reader
        self._drop_socket()
        if reader is not None and reader is not threading.current_thread():
            reader.join(5.0)

    def __enter__(self) -> Client:
        with self._lock:
            state = self._core.state
        if state == CLOSED:
            raise ValueError("this milieu.Client is closed: make a new one to connect again")
        return self.connect() if state == IDLE else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self) -> socket.socket:
        check_path(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path)
        except OSError as e:
            sock.close()
            raise ConnectionLost(f"cannot connect to {self.path}: {e}") from e
        try:
            check_peer(sock, self.path)
        except BaseException:
            sock.close()
            raise
        sock.settimeout(None)
        return sock

    def _attach(self, sock: socket.socket) -> None:
        """Makes ``sock`` the connection, with a reader thread of its own."""
        with self._lock:
            generation = self._core.attached()
            self._sock = sock
            reader = threading.Thread(
                target=self._read_loop, args=(sock, generation), name=f"milieu-reader-{generation}", daemon=True
            )
            self._reader = reader
        reader.start()

    def _read_loop(self, sock: socket.socket, generation: int) -> None:
        """The reader thread: every line to the state machine, then the end of the connection."""
        framer = Framer()
        try:
            while True:
                data = sock.recv(_RECV_BYTES)
                if not data:
                    break
                lines = framer.feed(data)
                with self._lock:
                    for line in lines:
                        self._core.receive(line)
                    outgoing = self._core.take_outgoing()
                if outgoing:
                    with self._write_lock:
                        sock.sendall(b"".join(outgoing))
        except OSError:
            pass
        finally:
            with self._lock:
                reconnect = self._core.lost(generation)
            sock.close()
        if reconnect:
            self._reconnect()

    def _drop_socket(self) -> None:
        """Shuts the current socket down; its reader thread then sees the connection end."""
        with self._lock:
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _reconnect(self) -> None:
        """Runs in the reader thread of the lost connection: attempts new ones, as the policy says."""
        policy = self._core.reconnect_policy
        assert policy is not None
        last: MilieuError | None = None
        for delay in policy.delays():
            with self._lock:
                if self._lock.wait_for(lambda: self._core.closing, delay):
                    return
            try:
                self._attach(self._open())
                self._run(self._core.handshake())
            except MilieuError as e:
                log.info("milieu: reconnect attempt failed: %s", e)
                last = e
                self._drop_socket()
                continue
            with self._lock:
                self._core.established()
            log.info("milieu: reconnected to %s", self.path)
            return
        with self._lock:
            self._core.gave_up(last)

    # --- requests --------------------------------------------------------------------

    def _run(self, plan: Plan[T]) -> T:
        """Carries out ``plan``: makes each request it asks for and resumes it with the outcome.
        The plan itself runs holding the lock (it changes the state machine); requests do not."""
        with self._lock:
            step = advance(plan)
        while not isinstance(step, Done):
            try:
                result, error = self._request(step), None
            except MilieuError as e:
                result, error = None, e
            with self._lock:
                step = advance(plan, result, error)
        return step.value

    def _request(self, call: Call) -> Any:
        """Sends ``call`` when the connection is ready and waits for its response."""
        deadline = Deadline(call.method, self.timeout if call.timeout is None else call.timeout)
        pending = _Pending(call)
        while True:
            with self._lock:
                self._wait_for(lambda: self._core.may_send(call.internal), deadline)
                line = self._core.start(pending)
                if line is None:
                    return None
                sock = self._sock
            assert sock is not None
            try:
                with self._write_lock:
                    sock.sendall(line)
                break
            except OSError as e:
                # Not sent, so not executed: once the reader has seen the connection go, the
                # request waits for the next connection and is sent again.
                with self._lock:
                    self._core.abandon(pending)
                    if call.internal or self._core.reconnect_policy is None:
                        # The daemon may have said why it closed (Forbidden): once the reader
                        # has seen the close, that is the error, not EPIPE.
                        remaining = deadline.remaining()
                        patience = 1.0 if remaining is None else min(1.0, remaining)
                        self._lock.wait_for(lambda: self._core.has_lost(pending.generation), patience)
                        if self._core.last_word is not None:
                            raise self._core.last_word from e
                        raise ConnectionLost(f"{call.method}: could not send the request: {e}") from e
                    self._wait_for(lambda: not self._core.is_up(pending.generation), deadline)
        if not pending.done.wait(deadline.remaining()):
            with self._lock:
                abandoned = self._core.abandon(pending)
            if abandoned:
                raise deadline.no_response()
            pending.done.wait()
        if pending.error is not None:
            raise pending.error
        return pending.result

    def _wait_for(self, ready: Callable[[], bool], deadline: Deadline) -> None:
        """Waits, holding the lock, until ``ready()``; raises :class:`Timeout` at ``deadline``."""
        if not self._lock.wait_for(ready, deadline.remaining()):
            raise deadline.not_ready()

    # One method for each plan of _methods.py: scripts/generate writes these lines.
    request = sync_method(methods.request)
    initialize = sync_method(methods.initialize)
    types = sync_method(methods.types)
    register = sync_method(methods.register)
    load = sync_method(methods.load)
    get = sync_method(methods.get)
    set = sync_method(methods.set)
    call = sync_method(methods.call)
    transaction = sync_method(methods.transaction)
    mount = sync_method(methods.mount)
    unmount = sync_method(methods.unmount)
    provide = sync_method(methods.provide)
    tree = sync_method(methods.tree)
    dependencies = sync_method(methods.dependencies)
    readers = sync_method(methods.readers)
    environment = sync_method(methods.environment)
    watch = sync_method(methods.watch)
    unwatch = sync_method(methods.unwatch)
    explain = sync_method(methods.explain)
    reset = sync_method(methods.reset)
    controls = sync_method(methods.controls)
    tap = sync_method(methods.tap)
    input = sync_method(methods.input)
    daemon_info = sync_method(methods.daemon_info)
    daemon_clients = sync_method(methods.daemon_clients)
    discover = sync_method(methods.discover)
    # (end of the generated methods)

    def shutdown(self, *, timeout: float | None = None) -> None:
        """``shutdown``: stops the daemon; the client then closes (it does not reconnect)."""
        self._run(self._core.shutdown(timeout))
        self.close()

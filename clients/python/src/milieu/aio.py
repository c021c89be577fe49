"""The asyncio client: the same surface as :class:`milieu.Client`, with coroutines; a driver of
:class:`milieu._core.Connection` on an event loop.

An :class:`AsyncClient` belongs to the event loop it connected in. Lines are read by an
``asyncio.Protocol`` and handed to the connection state machine, which resolves the future of
the request with that id or delivers the notification to its :class:`AsyncWatch`, in the order
received. Any number of tasks may call the client at once. When the connection drops, a task
reconnects (see :class:`ReconnectPolicy`) while calls wait, up to their timeouts, for the
connection to be ready again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Deque, TypeVar, Union

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

_Item = Union[Notification, MilieuError]


class _Pending(Pending):
    """A request whose caller awaits a future."""

    def __init__(self, call: Call, future: asyncio.Future[Any]) -> None:
        super().__init__(call)
        self.future = future

    def complete(self, result: Any, error: MilieuError | None) -> None:
        if self.future.done():
            return
        if error is not None:
            self.future.set_exception(error)
        else:
            self.future.set_result(result)


class _Protocol(asyncio.Protocol):
    """Reads connection ``generation`` for the client's state machine."""

    def __init__(self, client: AsyncClient, generation: int, sock: socket.socket) -> None:
        self._client = client
        self._generation = generation
        self._framer = Framer()
        self._sock = sock
        self._transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        core = self._client._core
        for line in self._framer.feed(data):
            core.receive(line)
        outgoing = core.take_outgoing()
        transport = self._transport
        if outgoing and isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(b"".join(outgoing))

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None:
            # A write failed (EPIPE): asyncio stops without reading what the daemon wrote before
            # it closed, which says why (Forbidden). The socket is still open here: read it.
            try:
                while chunk := self._sock.recv(1 << 16):
                    self.data_received(chunk)
            except OSError:
                pass
        self._client._lost(self._generation)


class AsyncWatch(WatchBase):
    """The notifications of one ``watch`` request: ``async for n in watch`` or ``await watch.next()``.

    Behaves as :class:`milieu.Watch`: :class:`~milieu.errors.Resync` is raised
    once after a reconnect that could not resume exactly (iterate again to go
    on); iteration stops after :meth:`close` once the notifications already
    received are consumed, and raises :class:`~milieu.errors.ConnectionLost`
    when the connection is gone for good.
    """

    def __init__(self, client: AsyncClient, state: WatchState) -> None:
        super().__init__(state)
        self._client = client
        self._items: Deque[_Item] = deque()
        self._changed = asyncio.Event()
        self._error: MilieuError | None = None

    async def next(self, timeout: float | None = None) -> Notification:
        """The next notification; waits up to ``timeout`` seconds (None: no limit).

        Raises :class:`~milieu.errors.Timeout` when none came in time and
        ``StopAsyncIteration`` when the watch is closed and drained.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._items:
            if self._finished:
                if self._error is not None:
                    raise self._error.with_traceback(None)
                raise StopAsyncIteration
            self._changed.clear()
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise Timeout(f"no notification for watch {self.id} within {timeout} s")
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except asyncio.TimeoutError:
                pass
        item = self._items.popleft()
        if isinstance(item, MilieuError):
            raise item
        return item

    def __aiter__(self) -> AsyncWatch:
        return self

    async def __anext__(self) -> Notification:
        return await self.next()

    async def close(self, *, timeout: float | None = None) -> None:
        """Ends the watch (``unwatch``); notifications already received can still be read."""
        await self._client.unwatch(self, timeout=timeout)

    async def __aenter__(self) -> AsyncWatch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        if not self._finished:
            try:
                await self.close()
            except ConnectionLost:
                self._finish(None)

    def _push(self, item: _Item) -> None:
        self._items.append(item)
        self._changed.set()

    def _finish(self, error: MilieuError | None) -> None:
        if not self._finished:
            self._finished = True
            self._error = error
        self._changed.set()


def async_method(
    plan: Callable[Concatenate[Connection[AsyncWatch], P], Plan[T]],
) -> Callable[Concatenate[AsyncClient, P], Coroutine[Any, Any, T]]:
    """A coroutine method of :class:`AsyncClient` that carries out ``plan`` (see :mod:`milieu._methods`)."""

    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(plan(self._core, *args, **kwargs))

    return methods.describe(method, plan, "AsyncWatch")


class AsyncClient(ClientBase[AsyncWatch]):
    """A connection to ``milieud`` for asyncio, with every request as a coroutine method.

    Arguments as for :class:`milieu.Client`. ``await client.connect()`` or
    ``async with AsyncClient() as c:`` connects and sends ``initialize``. Views
    mounted through a connection are unmounted by the daemon when that
    connection drops, reconnect or not, unless mounted with ``retain=True``.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        timeout: float | None = 10.0,
        reconnect: ReconnectPolicy | None = ReconnectPolicy(),
    ) -> None:
        super().__init__(path, timeout, reconnect, lambda state: AsyncWatch(self, state), self._wake)
        self._changed: asyncio.Event | None = None
        self._transport: asyncio.Transport | None = None
        self._reconnect_task: asyncio.Task[None] | None = None

    # --- connection ------------------------------------------------------------------

    async def connect(self) -> AsyncClient:
        """Connects and sends ``initialize``.

        Raises :class:`ConnectionLost` if the daemon is not there (``connect()`` may then be
        called again); a client connects once: after :meth:`close`, make a new one.
        """
        self._core.begin_connect()
        if self._changed is None:
            self._changed = asyncio.Event()  # made here, in the loop it belongs to
        try:
            await self._attach()
            await self._run(self._core.handshake())
        except BaseException:
            self._core.connect_failed()
            if self._transport is not None:
                self._transport.close()
            raise
        self._core.established()
        return self

    async def close(self) -> None:
        """Closes the connection. Pending calls fail with :class:`ConnectionLost`; watches end."""
        if not self._core.close():
            return
        task = self._reconnect_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
        if self._transport is not None:
            self._transport.close()

    async def __aenter__(self) -> AsyncClient:
        if self._core.state == CLOSED:
            raise ValueError("this milieu.AsyncClient is closed: make a new one to connect again")
        return await self.connect() if self._core.state == IDLE else self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _wake(self) -> None:
        """The state machine changed state: the calls waiting for it look again."""
        if self._changed is not None:
            self._changed.set()

    async def _attach(self) -> None:
        """Opens a new connection, read by a :class:`_Protocol` of its own."""
        generation = self._core.attached()
        loop = asyncio.get_running_loop()
        check_path(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, self.path), self.timeout)
        except (OSError, asyncio.TimeoutError) as e:
            sock.close()
            raise ConnectionLost(f"cannot connect to {self.path}: {e!r}") from e
        try:
            check_peer(sock, self.path)
            transport, _ = await loop.create_unix_connection(lambda: _Protocol(self, generation, sock), sock=sock)
        except OSError as e:
            sock.close()
            if isinstance(e, ConnectionLost):
                raise
            raise ConnectionLost(f"cannot connect to {self.path}: {e!r}") from e
        except BaseException:
            sock.close()
            raise
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def _lost(self, generation: int) -> None:
        """Connection ``generation`` closed: reconnect in a task if the state machine says so."""
        if self._core.lost(generation):
            self._reconnect_task = asyncio.ensure_future(self._reconnect())

    async def _reconnect(self) -> None:
        """Attempts new connections, as the policy says; cancelled by :meth:`close`."""
        policy = self._core.reconnect_policy
        assert policy is not None
        last: MilieuError | None = None
        for delay in policy.delays():
            await asyncio.sleep(delay)
            if self._core.closing:
                return
            try:
                await self._attach()
                await self._run(self._core.handshake())
            except MilieuError as e:
                log.info("milieu: reconnect attempt failed: %s", e)
                last = e
                if self._transport is not None:
                    self._transport.close()
                continue
            self._core.established()
            log.info("milieu: reconnected to %s", self.path)
            return
        self._core.gave_up(last)

    # --- requests --------------------------------------------------------------------

    async def _run(self, plan: Plan[T]) -> T:
        """Carries out ``plan``: makes each request it asks for and resumes it with the outcome."""
        step = advance(plan)
        while not isinstance(step, Done):
            try:
                result, error = await self._request(step), None
            except MilieuError as e:
                result, error = None, e
            step = advance(plan, result, error)
        return step.value

    async def _request(self, call: Call) -> Any:
        """Sends ``call`` when the connection is ready and waits for its response."""
        deadline = Deadline(call.method, self.timeout if call.timeout is None else call.timeout)
        while True:
            await self._wait_for(lambda: self._core.may_send(call.internal), deadline)
            transport = self._transport
            assert transport is not None
            if not transport.is_closing():
                break
            # The connection is going: what is written now would be lost unsent.
            if call.internal or self._core.reconnect_policy is None:
                raise ConnectionLost(f"{call.method}: the connection is closing")
            generation = self._core.generation
            await self._wait_for(lambda: not self._core.is_up(generation), deadline)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        pending = _Pending(call, future)
        line = self._core.start(pending)
        if line is None:
            return None
        transport.write(line)
        try:
            return await asyncio.wait_for(future, deadline.remaining())
        except asyncio.TimeoutError:
            if not future.done() or future.cancelled():
                raise deadline.no_response() from None
            # The answer came in the same turn as the timeout (Python 3.12's wait_for may then
            # raise): it is the call's, and a watch it made is held by the caller.
            return future.result()
        finally:
            self._core.abandon(pending)

    async def _wait_for(self, ready: Callable[[], bool], deadline: Deadline) -> None:
        """Waits until ``ready()``; raises :class:`Timeout` at ``deadline``."""
        while not ready():
            assert self._changed is not None, "ready() raises until connect()"
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), deadline.remaining())
            except asyncio.TimeoutError:
                raise deadline.not_ready() from None

    # One method for each plan of _methods.py: scripts/generate writes these lines.
    request = async_method(methods.request)
    initialize = async_method(methods.initialize)
    types = async_method(methods.types)
    register = async_method(methods.register)
    load = async_method(methods.load)
    get = async_method(methods.get)
    set = async_method(methods.set)
    call = async_method(methods.call)
    transaction = async_method(methods.transaction)
    mount = async_method(methods.mount)
    unmount = async_method(methods.unmount)
    provide = async_method(methods.provide)
    tree = async_method(methods.tree)
    dependencies = async_method(methods.dependencies)
    readers = async_method(methods.readers)
    environment = async_method(methods.environment)
    watch = async_method(methods.watch)
    unwatch = async_method(methods.unwatch)
    explain = async_method(methods.explain)
    reset = async_method(methods.reset)
    controls = async_method(methods.controls)
    tap = async_method(methods.tap)
    input = async_method(methods.input)
    daemon_info = async_method(methods.daemon_info)
    daemon_clients = async_method(methods.daemon_clients)
    discover = async_method(methods.discover)
    # (end of the generated methods)

    async def shutdown(self, *, timeout: float | None = None) -> None:
        """``shutdown``: stops the daemon; the client then closes (it does not reconnect)."""
        await self._run(self._core.shutdown(timeout))
        await self.close()

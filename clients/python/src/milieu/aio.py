"""The asyncio client: the same surface as :class:`milieu.Client`, with coroutines.

An :class:`AsyncClient` belongs to the event loop it connected in. Lines are
read by an ``asyncio.Protocol``: each response resolves the future of its
request id and each notification goes to the :class:`AsyncWatch` of its watch
id, in the order received. Any number of tasks may call the client at once.
When the connection drops, a task reconnects (see :class:`ReconnectPolicy`)
while calls wait, up to their timeouts, for the connection to be ready again.
"""

from __future__ import annotations

import asyncio
import logging
import os
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

_Item = Union[Notification, MilieuError]


class _Pending:
    """A request waiting for its response; ``hook`` runs before the next line is handled."""

    def __init__(self, generation: int, hook: Callable[[Any], None] | None, future: asyncio.Future[Any]) -> None:
        self.generation = generation
        self.hook = hook
        self.future = future

    def complete(self, result: Any, error: MilieuError | None) -> None:
        if self.future.done():
            return
        if error is not None:
            self.future.set_exception(error)
        else:
            self.future.set_result(result)


class _Protocol(asyncio.Protocol):
    def __init__(self, client: AsyncClient, generation: int) -> None:
        self._client = client
        self._generation = generation
        self._framer = Framer()

    def data_received(self, data: bytes) -> None:
        for line in self._framer.feed(data):
            self._client._dispatch(line)

    def connection_lost(self, exc: Exception | None) -> None:
        self._client._on_disconnect(self._generation)


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
        self._finished = False
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


class AsyncClient:
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
        self.path = socket_path(path)
        self.timeout = timeout
        self.reconnect_policy = reconnect
        self.server_info: InitializeResult | None = None
        """The result of ``initialize`` on the current connection."""
        self.reconnects = 0
        """How many times the client has reconnected."""
        self._state = _IDLE
        self._failure: MilieuError | None = None
        self._closing = False
        self._ready: asyncio.Event | None = None
        self._transport: asyncio.Transport | None = None
        self._lost: asyncio.Event | None = None
        self._generation = 0
        self._next_id = 0
        self._pending: Dict[int, _Pending] = {}
        self._bound: Dict[int, AsyncWatch] = {}
        self._watches: List[AsyncWatch] = []
        self._reconnect_task: asyncio.Task[None] | None = None
        self._last_unsolicited: MilieuError | None = None

    # --- connection ------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the connection is up and ready for requests."""
        return self._state == _READY

    @property
    def instance(self) -> str | None:
        """The daemon instance (new at every daemon start) the client is connected to."""
        return self.server_info["instance"] if self.server_info is not None else None

    async def connect(self) -> AsyncClient:
        """Connects and sends ``initialize``.

        Raises :class:`ConnectionLost` if the daemon is not there (``connect()`` may then be
        called again); a client connects once: after :meth:`close`, make a new one.
        """
        if self._state != _IDLE:
            raise ConnectionLost(f"the client is {self._state}; connect() works once")
        self._state = _CONNECTING
        self._ready = asyncio.Event()
        try:
            await self._attach()
            self.server_info = await self._request("initialize", initialize_params(), None, internal=True)
        except BaseException:
            if self._state == _CONNECTING:
                self._become(_IDLE)  # connect() may be tried again
            if self._transport is not None:
                self._transport.close()
            raise
        if self._state == _CONNECTING:
            self._become(_READY)
        return self

    async def close(self) -> None:
        """Closes the connection. Pending calls fail with :class:`ConnectionLost`; watches end."""
        if self._state == _CLOSED and self._closing:
            return
        self._closing = True
        self._become(_CLOSED)
        pending = list(self._pending.values())
        self._pending.clear()
        watches, self._watches = self._watches, []
        self._bound.clear()
        for p in pending:
            p.complete(None, ConnectionLost("the client was closed"))
        for w in watches:
            w._finish(None)
        task = self._reconnect_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
        if self._transport is not None:
            self._transport.close()

    async def __aenter__(self) -> AsyncClient:
        return await self.connect() if self._state == _IDLE else self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _become(self, state: str) -> None:
        self._state = state
        if self._ready is None:
            return
        if state in (_READY, _CLOSED):
            self._ready.set()
        else:
            self._ready.clear()

    async def _attach(self) -> None:
        self._generation += 1
        generation = self._generation
        self._last_unsolicited = None
        loop = asyncio.get_running_loop()
        try:
            transport, _ = await asyncio.wait_for(
                loop.create_unix_connection(lambda: _Protocol(self, generation), self.path), self.timeout
            )
        except (OSError, asyncio.TimeoutError) as e:
            raise ConnectionLost(f"cannot connect to {self.path}: {e!r}") from e
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._lost = asyncio.Event()

    def _dispatch(self, line: bytes) -> None:
        try:
            message = classify(line)
        except ValueError:
            log.warning("ignoring a line that is not JSON: %.200r", line)
            return
        if isinstance(message, Response):
            if message.id is None:
                self._last_unsolicited = message.error
            pending = self._pending.pop(message.id, None) if isinstance(message.id, int) else None
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
            watch = self._bound.get(message.watch)
            if watch is not None:
                watch._receive(message.method, message.params)

    def _on_disconnect(self, generation: int) -> None:
        if generation != self._generation:
            return
        if self._lost is not None:
            self._lost.set()
        failed = [i for i, p in self._pending.items() if p.generation == generation]
        pending = [self._pending.pop(i) for i in failed]
        self._bound.clear()
        cause = self._last_unsolicited
        for p in pending:
            error = ConnectionLost("the connection was lost before the response arrived")
            error.__cause__ = cause
            p.complete(None, error)
        if self._state != _READY:
            return
        if self._closing or self.reconnect_policy is None:
            if not self._closing:
                self._failure = ConnectionLost("the connection to the daemon was lost")
                self._failure.__cause__ = cause
            self._become(_CLOSED)
            for w in self._watches:
                w._finish(self._failure)
            return
        self._become(_RECONNECTING)
        self._reconnect_task = asyncio.ensure_future(self._reconnect())

    # --- reconnecting ----------------------------------------------------------------

    async def _reconnect(self) -> None:
        assert self.reconnect_policy is not None
        last: MilieuError | None = None
        for delay in self.reconnect_policy.delays():
            await asyncio.sleep(delay)
            if self._closing:
                return
            try:
                await self._attach()
                await self._handshake()
            except MilieuError as e:
                log.info("milieu: reconnect attempt failed: %s", e)
                last = e
                if self._transport is not None:
                    self._transport.close()
                continue
            if self._closing:
                return
            self.reconnects += 1
            self._become(_READY)
            log.info("milieu: reconnected to %s", self.path)
            return
        failure = ConnectionLost(f"the connection was lost and could not be restored: {last}")
        self._failure = failure
        self._become(_CLOSED)
        watches, self._watches = self._watches, []
        for w in watches:
            w._finish(failure)

    async def _handshake(self) -> None:
        info: InitializeResult = await self._request("initialize", initialize_params(), None, internal=True)
        self.server_info = info
        for watch in list(self._watches):
            await self._rewatch(watch, watch._state.instance != info["instance"])

    async def _rewatch(self, watch: AsyncWatch, restarted: bool) -> None:
        """As :meth:`milieu.Client._rewatch`: resume with ``sinceVersion``, else afresh with a Resync."""
        state = watch._state
        reason, oldest = "restarted", None
        if not restarted:
            since, repeated = state.resume_point()
            try:
                await self._request(
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
            await self._request(
                "watch", state.params(None), None, internal=True,
                hook=lambda r: self._bind(watch, r, resync=(reason, oldest)),
            )
        except (ConnectionLost, Timeout):
            raise
        except MilieuError as e:
            self._lose(watch, e)

    def _lose(self, watch: AsyncWatch, error: MilieuError) -> None:
        if watch in self._watches:
            self._watches.remove(watch)
        watch._push(Resync("failed", None, error=error))
        watch._finish(error)

    def _bind(
        self,
        watch: AsyncWatch,
        result: Any,
        *,
        repeated: List[Dict[str, Any]] | None = None,
        resync: tuple[str, int | None] | None = None,
        since: int | None = None,
    ) -> None:
        """Runs on a ``watch`` response, before the notifications that follow it are handled."""
        watch_id: int = result["watch"]
        version: int = result["version"]
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

    async def request(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """Sends any request and returns its result (or raises its typed error)."""
        return await self._request(method, dict(params or {}), timeout)

    async def _request(
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
            await self._wait_ready(method, limit, deadline, internal)
            transport, lost = self._transport, self._lost
            assert transport is not None and lost is not None
            if not transport.is_closing():
                break
            # The connection is going: what is written now would be lost unsent.
            if internal or self.reconnect_policy is None:
                raise ConnectionLost(f"{method}: the connection is closing")
            await _until(lost, deadline, method, limit)
        self._next_id += 1
        request_id = self._next_id
        info = self.server_info
        max_line = info["capabilities"].get("maxLineBytes") if info is not None else None
        line = encode_request(request_id, method, params, max_line)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = _Pending(self._generation, hook, future)
        transport.write(line)
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            return await asyncio.wait_for(future, remaining)
        except asyncio.TimeoutError:
            if not future.done() or future.cancelled():
                raise Timeout(f"{method}: no response within {limit} s") from None
            raise
        finally:
            self._pending.pop(request_id, None)

    async def _wait_ready(self, method: str, limit: float | None, deadline: float | None, internal: bool) -> None:
        """Waits until requests may be sent."""
        while not (self._state == _READY or (internal and self._state in (_CONNECTING, _RECONNECTING))):
            if self._state == _CLOSED:
                raise ConnectionLost(str(self._failure or "the client is closed"))
            if self._state == _IDLE or self._ready is None:
                raise ConnectionLost("the client is not connected: call connect() or use it in an async with block")
            await _until(self._ready, deadline, method, limit)

    async def initialize(self, *, timeout: float | None = None) -> InitializeResult:
        """``initialize`` again (``connect`` sends it already): the daemon, its capabilities, instance, version."""
        result: InitializeResult = await self._request("initialize", initialize_params(), timeout)
        return result

    async def types(self, *, timeout: float | None = None) -> TypesResult:
        """``schema/types``: every model type."""
        result: TypesResult = await self._request("schema/types", {}, timeout)
        return result

    async def register(self, types: Sequence[Mapping[str, Any]], *, timeout: float | None = None) -> RegisterResult:
        """``schema/register``: declares model types, all or nothing."""
        result: RegisterResult = await self._request("schema/register", {"types": [dict(t) for t in types]}, timeout)
        return result

    async def get(self, path: str, *, timeout: float | None = None) -> Any:
        """``graph/get``: a value, an object snapshot or a view snapshot."""
        return await self._request("graph/get", {"path": path}, timeout)

    async def set(
        self, path: str, value: Any, if_version: int | None = None, *, timeout: float | None = None
    ) -> VersionResult:
        """``graph/set``: writes ``value`` at ``path`` (only if its target is at ``if_version``)."""
        result: VersionResult = await self._op(ops.set(path, value, if_version), timeout)
        return result

    async def call(self, path: str, *args: Any, timeout: float | None = None) -> CallResult:
        """``graph/call``: runs the action at ``path`` with positional ``args``."""
        result: CallResult = await self._op(ops.call(path, *args), timeout)
        return result

    async def transaction(
        self, operations: Sequence[ops.Op | Mapping[str, Any]], *, timeout: float | None = None
    ) -> TransactionResult:
        """``graph/transaction``: the ops (see :mod:`milieu.ops`) all or nothing, as one version."""
        result: TransactionResult = await self._request(
            "graph/transaction", {"ops": [dict(op) for op in operations]}, timeout
        )
        return result

    async def mount(
        self, declaration: Mapping[str, Any] | None = None, *, timeout: float | None = None, **fields: Unpack[ops.ViewFields]
    ) -> MountResult:
        """``view/mount``: a view declaration in wire form, or keyword fields (see :func:`milieu.ops.declaration`)."""
        result: MountResult = await self._op(ops.mount(declaration, **fields), timeout)
        return result

    async def unmount(self, path: str, *, timeout: float | None = None) -> VersionResult:
        """``view/unmount``: unmounts the view at ``path`` and its subtree."""
        result: VersionResult = await self._op(ops.unmount(path), timeout)
        return result

    async def provide(
        self,
        path: str,
        environment_objects: Sequence[str] | None = None,
        environment: Mapping[str, Any] | None = None,
        withdraw: Sequence[str] | None = None,
        *,
        timeout: float | None = None,
    ) -> VersionResult:
        """``view/provide``: adds, replaces or withdraws what the view at ``path`` provides."""
        result: VersionResult = await self._op(ops.provide(path, environment_objects, environment, withdraw), timeout)
        return result

    async def tree(self, path: str | None = None, *, timeout: float | None = None) -> TreeResult:
        """``view/tree``: the views from ``path`` (default ``/App``)."""
        result: TreeResult = await self._request("view/tree", {} if path is None else {"path": path}, timeout)
        return result

    async def watch(
        self,
        paths: Sequence[str] | str | None = None,
        views: Sequence[str] | str | None = None,
        lifecycle: bool = False,
        *,
        since_version: int | None = None,
        timeout: float | None = None,
    ) -> AsyncWatch:
        """``watch``: returns an :class:`AsyncWatch` that yields the notifications for these targets.

        With ``since_version`` the daemon first replays what happened after that version.
        """
        state = WatchState(names(paths), names(views), lifecycle)
        watch = AsyncWatch(self, state)
        await self._request(
            "watch", state.params(since_version), timeout, hook=lambda r: self._bind(watch, r, since=since_version)
        )
        return watch

    async def unwatch(self, watch: AsyncWatch, *, timeout: float | None = None) -> None:
        """``unwatch``: ends ``watch``; its iteration stops after the notifications already received."""
        if watch._finished:
            return
        await self._request("unwatch", {"watch": watch.id}, timeout, hook=lambda _: self._unbind(watch))

    def _unbind(self, watch: AsyncWatch) -> None:
        if watch.id is not None:
            self._bound.pop(watch.id, None)
        if watch in self._watches:
            self._watches.remove(watch)
        watch._finish(None)

    async def shutdown(self, *, timeout: float | None = None) -> None:
        """``shutdown``: stops the daemon; the client then closes (it does not reconnect)."""
        await self._request("shutdown", {}, timeout, hook=lambda _: self._shutting_down())
        await self.close()

    def _shutting_down(self) -> None:
        self._closing = True

    async def discover(self, *, timeout: float | None = None) -> Dict[str, Any]:
        """``rpc.discover``: the OpenRPC document of the protocol."""
        result: Dict[str, Any] = await self._request("rpc.discover", {}, timeout)
        return result

    async def _op(self, op: ops.Op, timeout: float | None) -> Any:
        return await self._request(op["method"], op["params"], timeout)



async def _until(event: asyncio.Event, deadline: float | None, method: str, limit: float | None) -> None:
    """Waits for ``event`` until ``deadline`` (None: no limit); raises :class:`Timeout` after it."""
    remaining = None if deadline is None else deadline - time.monotonic()
    if remaining is not None and remaining <= 0:
        raise Timeout(f"{method}: the connection was not ready within {limit} s")
    try:
        await asyncio.wait_for(event.wait(), remaining)
    except asyncio.TimeoutError:
        raise Timeout(f"{method}: the connection was not ready within {limit} s") from None

"""The same scenarios through both clients: the sync :class:`milieu.Client` and the asyncio
:class:`milieu.AsyncClient` are two drivers of one connection state machine, so they must
behave alike on every path through it, above all when the connection drops.

Each scenario is a coroutine; a call's result goes through :func:`done`, which awaits it for
the asyncio client (the sync client's calls block the loop's thread, which nothing else uses).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import socket
import weakref
from typing import Any, AsyncIterator, Callable, Coroutine, Type, Union

import pytest

import milieu

from conftest import Daemon

AnyClient = Union[milieu.Client, milieu.AsyncClient]

DRIVERS = [pytest.param(milieu.Client, id="sync"), pytest.param(milieu.AsyncClient, id="asyncio")]

# Enough attempts to outlast any block in which the daemon is unreachable.
PATIENT = milieu.ReconnectPolicy(max_attempts=500, initial_delay=0.01, max_delay=0.05)


async def done(value: Any) -> Any:
    """The result of a client call: awaited for the asyncio client, as is for the sync one."""
    return await value if inspect.isawaitable(value) else value


@contextlib.asynccontextmanager
async def connected(driver: Type[AnyClient], path: str, **options: Any) -> AsyncIterator[Any]:
    """A connected client of ``driver``, closed at the end of the block."""
    client = driver(path, **options)
    await done(client.connect())
    try:
        yield client
    finally:
        await done(client.close())


def client_socket(client: AnyClient) -> socket.socket:
    """The socket of the client's current connection."""
    if isinstance(client, milieu.AsyncClient):
        assert client._transport is not None
        sock: socket.socket = client._transport.get_extra_info("socket")
        return sock
    assert client._sock is not None
    return client._sock


async def drop(client: AnyClient) -> None:
    """Breaks the connection under the client, as a network failure would, and waits until it notices."""
    client_socket(client).shutdown(socket.SHUT_RDWR)
    for _ in range(1000):
        if not client.connected:
            return
        await asyncio.sleep(0.01)
    pytest.fail("the client did not notice the dropped connection")


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_connection_lost_for_good_lets_go_of_its_watches(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, reconnect=None) as c:
            watch = await done(c.watch(paths="login"))
            await drop(c)
            try:
                await done(watch.next(timeout=10))
            except milieu.ConnectionLost:
                pass
            else:
                pytest.fail("the watch outlived its connection")
            gone = weakref.ref(watch)
            del watch
            gc.collect()
            assert gone() is None, "the client still holds a watch that ended for good"
            with pytest.raises(milieu.ConnectionLost):
                await done(c.get("login.email"))

    run(scenario)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_watch_resumes_after_a_drop_with_nothing_lost_or_repeated(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, reconnect=PATIENT) as c, milieu.AsyncClient(daemon.socket) as other:
            theme = await done(c.watch(paths="theme"))
            await done(c.set("theme.accentColor", "red"))
            assert (await done(theme.next(timeout=10))).version == 2
            with daemon.unreachable():
                await drop(c)
                await other.set("theme.accentColor", "green")
            await done(c.set("theme.fontScale", 2.0))  # waits until the reconnect is complete
            got = [await done(theme.next(timeout=10)) for _ in range(2)]
            assert [n.values() for n in got] == [{"theme.accentColor": "green"}, {"theme.fontScale": 2.0}]
            assert c.reconnects == 1 and c.connected

    run(scenario)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_watch_that_cannot_be_made_again_ends_with_its_error(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, reconnect=PATIENT) as c:
            await done(c.mount(parent="/App", name="Mine", state={"n": 0}))
            mine = await done(c.watch(paths="/App/Mine.n"))
            await drop(c)  # the daemon unmounts the view: it was this connection's
            with pytest.raises(milieu.Resync) as info:
                await done(mine.next(timeout=10))
            assert info.value.reason == "failed" and isinstance(info.value.error, milieu.UnknownPath)
            with pytest.raises(milieu.UnknownPath):
                await done(mine.next(timeout=10))
            await done(c.unwatch(mine))  # ended already: nothing to send

    run(scenario)


@pytest.mark.parametrize("driver", DRIVERS)
def test_watches_resync_when_the_daemon_restarted(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, reconnect=PATIENT) as c:
            login = await done(c.watch(paths="login"))
            first = c.instance
            daemon.restart()
            with pytest.raises(milieu.Resync) as info:
                await done(login.next(timeout=20))
            assert info.value.reason == "restarted" and c.instance != first
            await done(c.set("login.email", "kim@example.com"))
            after = await done(login.next(timeout=10))
            assert isinstance(after, milieu.DidChange) and after.version == 2

    run(scenario)


@pytest.mark.parametrize("driver", DRIVERS)
def test_closing_ends_watches_and_refuses_calls(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket) as c:
            login = await done(c.watch(paths="login"))
            await done(c.set("login.email", "kim@example.com"))
        assert not c.connected
        assert isinstance(await done(login.next(timeout=10)), milieu.DidChange), "received before the close"
        with pytest.raises(StopIteration if isinstance(c, milieu.Client) else StopAsyncIteration):
            await done(login.next(timeout=10))
        with pytest.raises(milieu.ConnectionLost, match="closed"):
            await done(c.get("login.email"))
        with pytest.raises(milieu.ConnectionLost, match="connect\\(\\) works once"):
            await done(c.connect())

    run(scenario)


@pytest.mark.parametrize("driver", DRIVERS)
def test_shutdown_stops_the_daemon_and_does_not_reconnect(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, reconnect=PATIENT) as c:
            login = await done(c.watch(paths="login"))
            await done(c.shutdown())
            assert not c.connected and c.reconnects == 0
            with pytest.raises(StopIteration if isinstance(c, milieu.Client) else StopAsyncIteration):
                await done(login.next(timeout=10))
        assert daemon.process is not None and daemon.process.wait(10) == 0

    run(scenario)


def in_background(client: AnyClient, call: Callable[[], Any]) -> asyncio.Future[Any]:
    """Starts the client call ``call`` alongside the scenario: in a thread for the sync client,
    in a task for the asyncio one."""
    if isinstance(client, milieu.AsyncClient):
        task: asyncio.Future[Any] = asyncio.ensure_future(call())
        return task
    return asyncio.get_running_loop().run_in_executor(None, call)


@pytest.mark.parametrize("driver", DRIVERS)
def test_unwatching_while_reconnecting_ends_that_watch_and_no_other(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, reconnect=PATIENT) as c, milieu.AsyncClient(daemon.socket) as other:
            first = await done(c.watch(paths="session"))
            theme = await done(c.watch(paths="theme"))
            login = await done(c.watch(paths="login"))
            await done(first.close())  # the daemon numbers the others 1 and 2 on the next connection
            assert (theme.id, login.id) == (2, 3)
            with daemon.unreachable():
                await drop(c)
                unwatching = in_background(c, lambda: c.unwatch(theme))
                await asyncio.sleep(0.2)  # the call waits for the connection
            await asyncio.wait_for(unwatching, 10)
            await other.set("login.email", "kim@example.com")
            await other.set("theme.accentColor", "red")
            after = await done(login.next(timeout=10))
            assert isinstance(after, milieu.DidChange) and after.values()["login.email"] == "kim@example.com"
            with pytest.raises(StopIteration if isinstance(c, milieu.Client) else StopAsyncIteration):
                await done(theme.next(timeout=10))

    run(scenario)

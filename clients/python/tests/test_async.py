"""The asyncio client: the same surface as the sync one, against real daemons."""

from __future__ import annotations

import asyncio
import socket
from typing import Callable, List

import pytest

import milieu
from milieu import ops

from conftest import Daemon

# Enough attempts to outlast any block in which the daemon is unreachable.
PATIENT = milieu.ReconnectPolicy(max_attempts=500, initial_delay=0.01, max_delay=0.05)


async def eventually(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def drop(c: milieu.AsyncClient) -> None:
    assert c._transport is not None
    c._transport.get_extra_info("socket").shutdown(socket.SHUT_RDWR)
    await eventually(lambda: not c.connected, "the client to notice the dropped connection")


@pytest.mark.asyncio
async def test_every_method(daemon: Daemon) -> None:
    async with milieu.AsyncClient(daemon.socket) as c:
        assert c.connected and c.server_info is not None and c.server_info["version"] == 1
        assert (await c.initialize())["instance"] == c.instance
        assert "Cart" in [t["name"] for t in (await c.types())["types"]]
        assert await c.get("theme.accentColor") == "blue"
        assert await c.set("login.email", "kim@example.com") == {"version": 2}
        assert await c.set("login.email", "lee@example.com", if_version=2) == {"version": 3}
        assert await c.call("session.start", "kim") == {"result": None, "version": 4}
        mounted = await c.mount(parent="/App", name="Shop", state_objects={"cart": {"type": "Cart"}}, body=["{cart.items}"])
        assert mounted == {"path": "/App/Shop", "body": ["[]"], "objects": {"cart": "Cart#4"}, "version": 5}
        done = await c.transaction([ops.call("/App/Shop.cart.add", "apple"), ops.mount({"parent": "/App/Shop", "name": "Row"})])
        assert done["version"] == 6 and done["results"][1]["path"] == "/App/Shop/Row"
        registered = await c.register([{"name": "Pet", "style": "observableObject"}], environment_keys={"mood": {"type": "string"}})
        assert registered == {"types": ["Pet"], "environmentKeys": ["mood"], "version": 7}
        assert await c.provide("/App/Shop", environment_objects=["cart"]) == {"version": 8}
        assert (await c.tree("/App/Shop"))["root"]["provides"]["environmentObjects"] == {"Cart": "Cart#4"}
        assert [v["path"] for v in (await c.tree())["root"]["children"]] == ["/App/Shop"]
        assert await c.unmount("/App/Shop") == {"version": 9}
        watch = await c.watch(paths="login")
        assert watch.id == 1
        await c.unwatch(watch)
        with pytest.raises(milieu.InvalidParams):
            await c.request("unwatch", {"watch": 1})
        assert (await c.discover())["openrpc"] == "1.3.2"
        await c.shutdown()
        assert not c.connected
    assert daemon.process is not None and daemon.process.wait(10) == 0


@pytest.mark.asyncio
async def test_typed_errors(client_socket: str) -> None:
    async with milieu.AsyncClient(client_socket) as c:
        await c.mount(parent="/App", name="Level1", state_objects={"cart": {"type": "Cart"}})
        with pytest.raises(milieu.EnvironmentObjectMissing) as info:
            await c.mount(parent="/App/Level1", name="Checkout", environment_objects={"cart": "Cart"})
        error = info.value
        assert (error.type, error.view, error.variable) == ("Cart", "/App/Level1/Checkout", "cart")
        assert list(error.searched) == ["/App/Level1/Checkout", "/App/Level1", "/App"]
        assert "view/provide" in error.hint
        with pytest.raises(milieu.VersionConflict) as conflict:
            await c.set("login.email", "x@y.zz", if_version=7)
        assert (conflict.value.expected, conflict.value.actual) == (7, 1)


@pytest.fixture
def client_socket(daemon: Daemon) -> str:
    return daemon.socket


@pytest.mark.asyncio
async def test_async_for_and_next_timeout(client_socket: str) -> None:
    async with milieu.AsyncClient(client_socket) as c:
        async with await c.watch(paths="theme.accentColor", lifecycle=True) as watch:
            with pytest.raises(milieu.Timeout):
                await watch.next(timeout=0.05)
            for color in ("red", "green"):
                await c.set("theme.accentColor", color)
            await c.mount(parent="/App", name="Shop", state_objects={"cart": {"type": "Cart"}})
            seen: List[milieu.Notification] = []
            async for n in watch:
                seen.append(n)
                if len(seen) == 3:
                    break
            assert [type(n) for n in seen] == [milieu.DidChange, milieu.DidChange, milieu.ObjectCreated]
            assert [n.version for n in seen] == [2, 3, 4]
            assert seen[1].raw["changes"] == [{"path": "theme.accentColor", "value": "green"}]
        assert [n async for n in watch] == [], "the async with block unwatched"


@pytest.mark.asyncio
async def test_concurrent_calls(client_socket: str) -> None:
    async with milieu.AsyncClient(client_socket) as c:
        paths = ["theme.accentColor", "theme.colorScheme", "theme.fontScale", "login.email", "session.user"] * 20
        values = await asyncio.gather(*(c.get(p) for p in paths))
        assert values == ["blue", "light", 1.0, "", None] * 20


@pytest.mark.asyncio
async def test_timeouts(daemon: Daemon) -> None:
    async with milieu.AsyncClient(daemon.socket, timeout=0.2) as c:
        daemon.pause()
        try:
            with pytest.raises(milieu.Timeout):
                await c.get("theme.accentColor")
            with pytest.raises(milieu.Timeout):
                await c.types(timeout=0.1)
        finally:
            daemon.resume()
        assert await c.get("login.email", timeout=5) == ""


@pytest.mark.asyncio
async def test_reconnect_replays_changes_made_while_disconnected(daemon: Daemon) -> None:
    async with milieu.AsyncClient(daemon.socket, reconnect=PATIENT) as c, milieu.AsyncClient(daemon.socket) as other:
        theme = await c.watch(paths="theme")
        await c.set("theme.accentColor", "red")
        assert (await theme.next(timeout=5)).version == 2
        with daemon.unreachable():
            await drop(c)
            await other.set("theme.accentColor", "green")
            await other.set("theme.fontScale", 2.0)
            assert not c.connected
        replayed = [await theme.next(timeout=10), await theme.next(timeout=10)]
        assert [n.raw["changes"] for n in replayed] == [
            [{"path": "theme.accentColor", "value": "green"}],
            [{"path": "theme.fontScale", "value": 2.0}],
        ]
        await c.set("theme.accentColor", "blue")  # waits until the reconnect is complete
        assert c.reconnects == 1
        live = await theme.next(timeout=10)
        assert isinstance(live, milieu.DidChange) and live.values() == {"theme.accentColor": "blue"}


@pytest.mark.asyncio
async def test_a_call_on_a_closing_connection_is_sent_after_the_reconnect(client_socket: str) -> None:
    async with milieu.AsyncClient(client_socket, reconnect=PATIENT) as c:
        assert c._transport is not None
        c._transport.close()  # closing now; the client hears of it on the next turn of the loop
        assert await c.set("login.email", "kim@example.com") == {"version": 2}
        assert c.reconnects == 1


@pytest.mark.asyncio
async def test_resync_when_the_daemon_restarted(daemon: Daemon) -> None:
    async with milieu.AsyncClient(daemon.socket, reconnect=PATIENT) as c:
        login = await c.watch(paths="login")
        first = c.instance
        daemon.restart()
        with pytest.raises(milieu.Resync) as info:
            await login.next(timeout=20)
        assert info.value.reason == "restarted" and c.instance != first
        await c.set("login.email", "kim@example.com")
        after = await login.next(timeout=10)
        assert isinstance(after, milieu.DidChange) and after.version == 2


@pytest.mark.asyncio
async def test_without_a_policy_a_drop_is_final(client_socket: str) -> None:
    async with milieu.AsyncClient(client_socket, reconnect=None) as c:
        login = await c.watch(paths="login")
        await drop(c)
        with pytest.raises(milieu.ConnectionLost):
            await login.next(timeout=10)
        with pytest.raises(milieu.ConnectionLost):
            await c.get("login.email")


@pytest.mark.asyncio
async def test_connect_fails_without_a_daemon_and_can_be_tried_again(make_daemon: Callable[..., Daemon]) -> None:
    daemon = make_daemon(start=False)
    c = milieu.AsyncClient(daemon.socket)
    with pytest.raises(milieu.ConnectionLost):
        await c.connect()
    daemon.start()
    async with c:
        assert await c.get("theme.accentColor") == "blue"

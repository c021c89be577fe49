"""Clients trust only their own daemon (SPEC §1.2): a socket another user could replace, or whose
file another user owns, is refused before a byte is sent (issue #15 item 12, issue #26 items 13
and 14); one's own socket in a sticky directory such as /tmp is used (issue #30 item 7)."""

from __future__ import annotations

import asyncio
import os
import socket
import tempfile
import threading
from typing import Callable, Iterator, List, Tuple

import pytest

import milieu

from conftest import Daemon


class FakeServer:
    """Listens on ``directory/milieu.sock`` and records every byte a client sends; with
    ``refusal``, does what milieud does for another user's connection (SPEC §1.2) instead:
    writes that line as soon as it accepts, and closes."""

    def __init__(self, directory: str, refusal: bytes | None = None) -> None:
        self.path = os.path.join(directory, "milieu.sock")
        self.refusal = refusal
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(4)
        self.received = bytearray()
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            conn.settimeout(0.5)
            with conn:
                if self.refusal is not None:
                    conn.sendall(self.refusal)
                    continue
                try:
                    while data := conn.recv(4096):
                        self.received += data
                except OSError:
                    pass

    def close(self) -> None:
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() the thread waits in
        except OSError:
            pass
        self.listener.close()
        self.thread.join(2.0)


def _squatted(mode: int, owner: int | None) -> Iterator[Tuple[str, FakeServer]]:
    with tempfile.TemporaryDirectory() as parent:
        directory = os.path.join(parent, "milieu-squat")
        os.mkdir(directory)
        server = FakeServer(directory)
        os.chmod(directory, mode)
        if owner is not None:
            os.chown(directory, owner, -1)
        try:
            yield directory, server
        finally:
            server.close()


@pytest.fixture
def world_writable() -> Iterator[Tuple[str, FakeServer]]:
    yield from _squatted(0o777, None)


@pytest.fixture
def foreign_owned() -> Iterator[Tuple[str, FakeServer]]:
    if os.geteuid() != 0:
        pytest.skip("chown to another uid needs root")
    yield from _squatted(0o700, 65534)


def _refused_sync(server: FakeServer) -> str:
    client = milieu.Client(server.path, timeout=2.0, reconnect=None)
    with pytest.raises(milieu.ConnectionLost) as info:
        client.connect()
    client.close()
    return str(info.value)


def _refused_async(server: FakeServer) -> str:
    async def attempt() -> str:
        client = milieu.AsyncClient(server.path, timeout=2.0, reconnect=None)
        with pytest.raises(milieu.ConnectionLost) as info:
            await client.connect()
        await client.close()
        return str(info.value)

    return asyncio.run(attempt())


@pytest.mark.parametrize("refused", [_refused_sync, _refused_async])
def test_world_writable_directory_is_refused(world_writable: Tuple[str, FakeServer], refused: object) -> None:
    directory, server = world_writable
    message = refused(server)  # type: ignore[operator]
    assert message == (
        f"refusing {server.path}: {directory} has mode 0777: others may write to it and it is not sticky, "
        "so they could replace the socket; use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)"
    )
    assert server.connections == 0 and bytes(server.received) == b""


@pytest.mark.parametrize("refused", [_refused_sync, _refused_async])
def test_directory_of_another_uid_is_refused(foreign_owned: Tuple[str, FakeServer], refused: object) -> None:
    directory, server = foreign_owned
    message = refused(server)  # type: ignore[operator]
    assert f"{directory} belongs to uid 65534, not to you (uid {os.geteuid()}) or root" in message
    assert server.connections == 0 and bytes(server.received) == b""


@pytest.mark.parametrize("refused", [_refused_sync, _refused_async])
def test_a_socket_of_another_uid_in_ones_own_directory_is_refused(refused: object) -> None:
    if os.geteuid() != 0:
        pytest.skip("chown to another uid needs root")
    with tempfile.TemporaryDirectory(dir="/tmp") as directory:
        server = FakeServer(directory)
        try:
            os.lchown(server.path, 65534, -1)
            message = refused(server)  # type: ignore[operator]
            assert message == (
                f"refusing {server.path}: the socket {server.path} belongs to uid 65534, not to you (uid 0), "
                "so another user's process serves it; "
                "use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)"
            )
            assert server.connections == 0 and bytes(server.received) == b""
        finally:
            server.close()


def test_ones_own_daemon_straight_in_tmp_is_used(make_daemon: Callable[..., Daemon]) -> None:
    daemon = make_daemon(start=False)
    daemon.socket = f"/tmp/milieu-py-trust-{os.getpid()}.sock"
    try:
        daemon.start()
        with milieu.Client(daemon.socket, timeout=5.0) as client:
            assert client.get("theme.colorScheme") == "light"

        async def read() -> object:
            async with milieu.AsyncClient(daemon.socket, timeout=5.0) as client:
                return await client.get("theme.colorScheme")

        assert asyncio.run(read()) == "light"
    finally:
        daemon.stop()
        for leftover in (daemon.socket, daemon.socket + ".lock"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def test_peer_of_another_uid_is_refused(tmp_path: object) -> None:
    """SO_PEERCRED: a server run as another uid, in a directory that looks like ours."""
    if os.geteuid() != 0 or not hasattr(socket, "SO_PEERCRED"):
        pytest.skip("needs root and SO_PEERCRED")
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "milieu.sock")
        os.chmod(directory, 0o755)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: a server run as nobody, that reports what it receives
            try:
                os.close(read_end)
                listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                listener.bind(path)
                os.setuid(65534)
                listener.listen(1)  # SO_PEERCRED gives the credentials of listen()
                os.write(write_end, b"R")
                conn, _ = listener.accept()
                conn.settimeout(1.0)
                received: List[bytes] = []
                try:
                    while data := conn.recv(4096):
                        received.append(data)
                except OSError:
                    pass
                os.write(write_end, b"".join(received) or b"-")
            finally:
                os._exit(0)
        os.close(write_end)
        try:
            assert os.read(read_end, 1) == b"R"
            client = milieu.Client(path, timeout=2.0, reconnect=None)
            with pytest.raises(milieu.ConnectionLost, match="runs as uid 65534, not as you"):
                client.connect()
            client.close()
            assert os.read(read_end, 4096) == b"-"
        finally:
            os.close(read_end)
            os.waitpid(pid, 0)


REFUSAL = (
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32011,"message":"connections from uid 1001 are refused: '
    b'milieud serves only its own user","data":{"reason":"peer","kind":"Forbidden"}}}\n'
)


@pytest.fixture
def refusing() -> Iterator[FakeServer]:
    with tempfile.TemporaryDirectory(dir="/tmp") as directory:
        server = FakeServer(directory, refusal=REFUSAL)
        yield server
        server.close()


def test_a_refused_connection_raises_the_daemons_forbidden(refusing: FakeServer) -> None:
    # Ten times: the close may come before or after the client has written initialize (EPIPE).
    for _ in range(10):
        with pytest.raises(milieu.Forbidden) as info:
            milieu.Client(refusing.path, timeout=2.0, reconnect=None).connect()
        assert "milieud serves only its own user" in str(info.value)

        async def attempt() -> None:
            await milieu.AsyncClient(refusing.path, timeout=2.0, reconnect=None).connect()

        with pytest.raises(milieu.Forbidden):
            asyncio.run(attempt())

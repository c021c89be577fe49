"""A call given up on whose answer comes later: dropped, and the watch a late ``watch`` made is
ended, since nobody holds it and it would send notifications nobody sees until the connection
closes. Driven by a scripted daemon that answers the watch only after the client gave up."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import socket
import tempfile
import threading
from typing import Any, Dict, Iterator

import pytest

import milieu

INFO = {
    "server": {"name": "milieud", "version": "scripted"}, "protocolVersion": "1",
    "capabilities": {"watch": True, "maxLineBytes": 1048576}, "instance": "a", "version": 1,
}


class SlowWatches:
    """Answers ``initialize`` at once and ``watch`` once :meth:`answer` is called; every other
    request the client sends is put in :attr:`requests`."""

    def __init__(self, directory: str) -> None:
        self.path = os.path.join(directory, "milieu.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(1)
        self.requests: queue.Queue[Dict[str, Any]] = queue.Queue()
        self._watches: queue.Queue[int] = queue.Queue()
        threading.Thread(target=self._serve, daemon=True).start()

    def answer(self) -> None:
        """Answers the watch request waiting, with daemon watch id 4."""
        self._watches.put(4)

    def _serve(self) -> None:
        try:
            self._answer_one_client()
        except (OSError, queue.Empty):
            pass  # the test is over: the client closed, or the listener did

    def _answer_one_client(self) -> None:
        conn, _ = self.listener.accept()
        with conn, conn.makefile("rwb") as stream:
            for raw in stream:
                request = json.loads(raw)
                if request["method"] == "initialize":
                    result: Any = INFO
                elif request["method"] == "watch":
                    result = {"watch": self._watches.get(timeout=10), "version": 1}
                else:
                    self.requests.put(request)
                    result = {}
                stream.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n")
                stream.flush()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def daemon() -> Iterator[SlowWatches]:
    with tempfile.TemporaryDirectory() as directory:
        os.chmod(directory, 0o700)
        server = SlowWatches(directory)
        yield server
        server.close()


def test_a_watch_answered_after_its_timeout_is_ended(daemon: SlowWatches) -> None:
    with milieu.Client(daemon.path, reconnect=None) as client:
        with pytest.raises(milieu.Timeout):
            client.watch("theme", timeout=0.2)
        daemon.answer()
        unwatch = daemon.requests.get(timeout=5)
        assert (unwatch["method"], unwatch["params"]) == ("unwatch", {"watch": 4})


@pytest.mark.asyncio
async def test_an_async_watch_answered_after_its_timeout_is_ended(daemon: SlowWatches) -> None:
    async with milieu.AsyncClient(daemon.path, reconnect=None) as client:
        with pytest.raises(milieu.Timeout):
            await client.watch("theme", timeout=0.2)
        daemon.answer()
        unwatch = await asyncio.to_thread(daemon.requests.get, timeout=5)
        assert (unwatch["method"], unwatch["params"]) == ("unwatch", {"watch": 4})

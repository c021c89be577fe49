"""Timeouts (a daemon stopped with SIGSTOP never answers) and concurrent calls from many threads."""

from __future__ import annotations

import threading
from typing import List

import pytest

import milieu

from conftest import Daemon


def test_per_call_timeout(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, timeout=10.0) as c:
        daemon.pause()
        try:
            with pytest.raises(milieu.Timeout) as info:
                c.get("theme.accentColor", timeout=0.2)
            assert isinstance(info.value, TimeoutError) and info.value.code == 0
        finally:
            daemon.resume()
        # The late answer to the abandoned request is dropped, not handed to the next call.
        assert c.get("login.email") == ""
        assert c.connected


def test_default_timeout_applies_to_every_call(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, timeout=0.2) as c:
        daemon.pause()
        try:
            for call in (lambda: c.types(), lambda: c.set("login.email", "x@y.zz"), lambda: c.watch(paths="login")):
                with pytest.raises(milieu.Timeout):
                    call()
        finally:
            daemon.resume()
        assert c.get("theme.accentColor", timeout=5) == "blue"


def test_many_threads_each_get_their_own_responses(client: milieu.Client) -> None:
    threads = 8
    rounds = 25
    for i in range(threads):
        client.mount(parent="/App", name=f"V{i}", state={"n": 0}, retain=True)
    failures: List[str] = []

    def work(i: int) -> None:
        try:
            for j in range(1, rounds + 1):
                client.set(f"/App/V{i}.n", j)
                value = client.get(f"/App/V{i}.n")
                if value != j:
                    failures.append(f"thread {i} read {value!r}, wrote {j}")
        except milieu.MilieuError as e:
            failures.append(f"thread {i}: {e!r}")

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert failures == []
    assert client.initialize()["version"] == 1 + threads + threads * rounds

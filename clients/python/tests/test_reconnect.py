"""Reconnecting (sync client): watches resume with ``sinceVersion``, or surface ``Resync``.

A dropped connection is simulated by shutting down the client's own socket
(``Client._sock``); the daemon sees the connection close, as it would for a
network failure, and unmounts the views that connection mounted.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from pathlib import Path
from typing import Callable, List

import pytest

import milieu

from conftest import Daemon, wait_until


def drop(c: milieu.Client) -> None:
    assert c._sock is not None
    c._sock.shutdown(socket.SHUT_RDWR)
    wait_until(lambda: not c.connected, what="the client to notice the dropped connection")


def changes(watch: milieu.Watch, count: int) -> List[milieu.DidChange]:
    received = []
    for _ in range(count):
        n = watch.next(timeout=10)
        assert isinstance(n, milieu.DidChange)
        received.append(n)
    return received


# Enough attempts to outlast any block in which the daemon is unreachable.
PATIENT = milieu.ReconnectPolicy(max_attempts=500, initial_delay=0.01, max_delay=0.05)


def test_changes_made_while_disconnected_are_replayed_once(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c, milieu.Client(daemon.socket) as other:
        theme = c.watch(paths="theme")
        c.set("theme.accentColor", "red")
        assert [n.values() for n in changes(theme, 1)] == [{"theme.accentColor": "red"}]

        with daemon.unreachable():
            drop(c)
            other.set("theme.accentColor", "green")
            other.set("theme.fontScale", 2.0)
            other.set("theme.accentColor", "green")  # an equal write: no version, no notification
            assert not c.connected

        replayed = changes(theme, 2)
        assert [n.values() for n in replayed] == [{"theme.accentColor": "green"}, {"theme.fontScale": 2.0}]
        c.set("theme.accentColor", "blue")  # waits until the reconnect is complete
        assert c.connected and c.reconnects == 1
        live = theme.next(timeout=10)
        assert isinstance(live, milieu.DidChange) and live.values() == {"theme.accentColor": "blue"}, (
            "the notification that came before the drop was not delivered twice"
        )
        assert replayed[0].version < replayed[1].version < live.version


def test_views_mounted_by_the_dropped_connection_are_gone_unless_retained(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket) as c:
        c.mount(parent="/App", name="Mine", body=["mine"])
        c.mount(parent="/App", name="Kept", body=["kept"], retain=True)
        app = c.watch(views="/App")
        drop(c)
        gone = app.next(timeout=10)
        assert isinstance(gone, milieu.DidUnmount)
        assert (gone.path, gone.reason) == ("/App/Mine", "connectionClosed")
        assert c.get("/App/Kept")["body"] == ["kept"]
        assert c.connected and c.reconnects == 1
        with pytest.raises(milieu.UnknownPath):
            c.get("/App/Mine")


def test_calls_made_while_reconnecting_wait_for_the_connection(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c:
        with daemon.unreachable():
            drop(c)
        assert c.set("login.email", "kim@example.com", timeout=10) == {"version": 2}
        assert c.reconnects == 1


class _RecordingSocket:
    """Wraps the client's socket to tell when a request has been handed to the kernel, or refused."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.sent = threading.Event()
        self.refused = threading.Event()

    def sendall(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError:
            self.refused.set()
            raise
        self.sent.set()

    def shutdown(self, how: int) -> None:
        self._sock.shutdown(how)


def recording(c: milieu.Client) -> _RecordingSocket:
    assert c._sock is not None
    wrapper = _RecordingSocket(c._sock)
    c._sock = wrapper  # type: ignore[assignment]
    return wrapper


def test_a_call_in_flight_when_the_connection_drops_fails(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c:
        sock = recording(c)
        errors: List[BaseException] = []

        def call() -> None:
            try:
                c.get("login.email")
            except milieu.MilieuError as e:
                errors.append(e)

        daemon.pause()
        try:
            caller = threading.Thread(target=call)
            caller.start()
            assert sock.sent.wait(10)
            sock.shutdown(socket.SHUT_RDWR)
            caller.join(10)
        finally:
            daemon.resume()
        assert len(errors) == 1 and isinstance(errors[0], milieu.ConnectionLost), "it may have been executed"
        assert c.get("login.email", timeout=10) == ""


def test_a_call_that_could_not_be_sent_is_sent_after_the_reconnect(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c:
        sock = recording(c)
        result = {}

        def call() -> None:
            result["set"] = c.set("login.email", "kim@example.com", timeout=10)

        daemon.pause()  # so the reader does not see the connection close before the call tries to send
        try:
            sock.shutdown(socket.SHUT_WR)
            caller = threading.Thread(target=call)
            caller.start()
            assert sock.refused.wait(10)
        finally:
            daemon.resume()
        caller.join(10)
        assert result == {"set": {"version": 2}}
        assert c.reconnects == 1


def test_resync_when_the_daemon_restarted(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c:
        login = c.watch(paths="login")
        c.set("login.email", "kim@example.com")
        assert changes(login, 1)[0].version == 2
        first = c.instance
        daemon.restart()
        with pytest.raises(milieu.Resync) as info:
            login.next(timeout=20)
        assert info.value.reason == "restarted" and info.value.version == 1 and info.value.error is None
        assert c.instance != first
        assert c.get("login.email") == "", "the new daemon started from its scene"
        c.set("login.email", "lee@example.com")
        after = changes(login, 1)[0]
        assert after.version == 2 and after.values()["login.email"] == "lee@example.com"


def test_a_watch_resumes_across_a_restart_of_a_daemon_with_saved_state(
    make_daemon: Callable[..., Daemon], tmp_path: Path
) -> None:
    daemon = make_daemon("--data-dir", str(tmp_path))
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c:
        login = c.watch(paths="login")
        c.set("login.email", "kim@example.com")
        seen = changes(login, 1)[0].version
        first = c.instance
        daemon.stop()
        # While c is away, a daemon on the same data directory (another socket) takes a change.
        elsewhere = make_daemon("--data-dir", str(tmp_path))
        with milieu.Client(elsewhere.socket) as other:
            other.set("login.email", "lee@example.com")
        elsewhere.stop()
        daemon.start()
        missed = changes(login, 1)[0]
        assert missed.version == seen + 1 and missed.values() == {"login.email": "lee@example.com"}
        assert c.instance == first, "the same store: the same instance, so the watch resumed"
        c.set("login.email", "kim@example.com")
        assert changes(login, 1)[0].version == seen + 2, "versions continue after the restart"


def test_a_restart_that_drops_a_retained_view_is_told_on_connecting(
    make_daemon: Callable[..., Daemon], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    scene = tmp_path / "form.json"
    scene.write_text(json.dumps({"views": [{"parent": "/App", "name": "Form", "state": {"toggle": False}}]}))
    daemon = make_daemon("--data-dir", str(tmp_path), "--scene", str(scene))
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c:
        c.mount(parent="/App/Form", name="Extra", retain=True, state={"n": 1})
        assert c.restore is None, "nothing was dropped at its start"
        daemon.args = ["--data-dir", str(tmp_path)]  # the default scene: no /App/Form
        with caplog.at_level(logging.WARNING, logger="milieu"):
            daemon.restart()
            wait_until(lambda: c.reconnects == 1, what="the reconnection")
        reason = "UnknownPath: unknown path /App/Form: no view is mounted there to be the parent"
        expected = {"types": 0, "views": 0, "values": 0, "droppedCount": 1,
                    "dropped": [{"kind": "view", "name": "/App/Form/Extra", "reason": reason}]}
        assert c.restore == expected
        assert c.daemon_info().get("restore") == expected
        assert "could not restore 1 of what it keeps" in caplog.text and "/App/Form/Extra" in caplog.text


def test_resync_when_the_history_kept_across_a_restart_is_too_short(
    make_daemon: Callable[..., Daemon], tmp_path: Path
) -> None:
    daemon = make_daemon("--data-dir", str(tmp_path), "--history", "1")
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c:
        theme = c.watch(paths="theme")
        daemon.stop()
        elsewhere = make_daemon("--data-dir", str(tmp_path), "--history", "1")
        with milieu.Client(elsewhere.socket) as other:
            for color in ("red", "green", "yellow"):
                other.set("theme.accentColor", color)
        elsewhere.stop()
        daemon.start()
        with pytest.raises(milieu.Resync) as info:
            theme.next(timeout=20)
        assert info.value.reason == "compacted" and info.value.oldest is not None
        assert c.get("theme.accentColor") == "yellow"


def test_resync_when_the_history_was_compacted(make_daemon: Callable[..., Daemon]) -> None:
    daemon = make_daemon("--history", "1")
    with milieu.Client(daemon.socket, reconnect=PATIENT) as c, milieu.Client(daemon.socket) as other:
        theme = c.watch(paths="theme")
        with daemon.unreachable():
            drop(c)
            for color in ("red", "green", "yellow"):
                other.set("theme.accentColor", color)
        with pytest.raises(milieu.Resync) as info:
            theme.next(timeout=10)
        assert info.value.reason == "compacted" and info.value.oldest is not None
        assert c.get("theme.accentColor") == "yellow"
        other.set("theme.accentColor", "blue")
        live = changes(theme, 1)[0]
        assert live.values() == {"theme.accentColor": "blue"} and live.version > (info.value.version or 0)


def test_a_watch_that_cannot_be_made_again_ends(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket) as c:
        c.mount(parent="/App", name="Mine", state={"n": 0})
        mine = c.watch(paths="/App/Mine.n")
        drop(c)
        with pytest.raises(milieu.Resync) as info:
            mine.next(timeout=10)
        assert info.value.reason == "failed" and isinstance(info.value.error, milieu.UnknownPath)
        with pytest.raises(milieu.UnknownPath):
            mine.next(timeout=10)


def test_reconnecting_gives_up_after_its_attempts(daemon: Daemon) -> None:
    brief = milieu.ReconnectPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)
    with milieu.Client(daemon.socket, reconnect=brief) as c:
        login = c.watch(paths="login")
        daemon.stop()
        with pytest.raises(milieu.ConnectionLost) as info:
            login.next(timeout=10)
        assert "could not be restored" in str(info.value)
        with pytest.raises(milieu.ConnectionLost):
            c.get("login.email")


def test_without_a_policy_a_drop_is_final(daemon: Daemon) -> None:
    with milieu.Client(daemon.socket, reconnect=None) as c:
        login = c.watch(paths="login")
        drop(c)
        with pytest.raises(milieu.ConnectionLost):
            login.next(timeout=10)
        with pytest.raises(milieu.ConnectionLost):
            c.get("login.email")
        assert c.reconnects == 0

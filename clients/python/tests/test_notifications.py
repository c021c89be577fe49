"""Notifications of the sync client: typed objects, iteration, ``next(timeout=)``, and the raw params."""

from __future__ import annotations

import os
import threading
from typing import List

import pytest

import milieu
from milieu import ops

from conftest import Daemon


def test_every_notification_type_is_typed(client: milieu.Client) -> None:
    client.mount(parent="/App", name="StartView", state={"selectedNum": 10}, body=["selected: {selectedNum}"])
    client.mount(
        parent="/App/StartView",
        name="ContentView",
        inputs={"num": {"$parent": "selectedNum"}},
        state_objects={"viewModel": {"type": "ViewModel", "init": {"num": {"$input": "num"}}}},
        body=["num: {viewModel.num}"],
    )
    views = client.watch(views="/App/StartView")
    objects = client.watch(paths="login", lifecycle=True)

    client.set("/App/StartView.selectedNum", 11)
    change = views.next(timeout=5)
    assert change == milieu.DidChange(
        views.id or 0, 4, (milieu.Change("/App/StartView.selectedNum", 11),), {}
    )
    assert change.raw == {"watch": views.id, "version": 4, "changes": [{"path": "/App/StartView.selectedNum", "value": 11}]}
    parent = views.next(timeout=5)
    assert isinstance(parent, milieu.DidUpdate)
    assert (parent.path, parent.reasons, parent.body) == ("/App/StartView", ("_selectedNum",), ("selected: 11",))
    child = views.next(timeout=5)
    assert isinstance(child, milieu.DidUpdate)
    assert (child.path, child.reasons, child.body) == ("/App/StartView/ContentView", ("@self",), ("num: 10",))
    diagnostic = views.next(timeout=5)
    assert isinstance(diagnostic, milieu.Diagnostic)
    assert diagnostic.kind == "StateObjectInitIgnored"
    assert (diagnostic.path, diagnostic.variable, diagnostic.ignored) == ("/App/StartView/ContentView", "viewModel", {"num": 11})
    assert diagnostic.hint and diagnostic.message

    client.set("login.password", "hunter22")
    secret = objects.next(timeout=5)
    assert isinstance(secret, milieu.DidChange)
    assert secret.changes == (milieu.Change("login.password", None, redacted=True),)
    assert secret.values() == {}

    client.mount(parent="/App", name="Shop", state_objects={"cart": {"type": "Cart"}}, body=["{cart.items}"])
    created = objects.next(timeout=5)
    assert isinstance(created, milieu.ObjectCreated)
    assert (created.object, created.type, created.owner, created.reason) == ("Cart#5", "Cart", "/App/Shop.cart", "stateObject")
    client.unmount("/App/Shop")
    destroyed = objects.next(timeout=5)
    assert isinstance(destroyed, milieu.ObjectDestroyed)
    assert (destroyed.object, destroyed.reason) == ("Cart#5", "ownerUnmounted")

    app = client.watch(views="/App")
    client.mount(parent="/App", name="Banner", body=["hello"])
    mounted = app.next(timeout=5)
    assert isinstance(mounted, milieu.DidMount)
    assert (mounted.path, mounted.reason, mounted.body) == ("/App/Banner", "mounted", ("hello",))
    client.unmount("/App/Banner")
    unmounted = app.next(timeout=5)
    assert isinstance(unmounted, milieu.DidUnmount)
    assert (unmounted.path, unmounted.reason, unmounted.version) == ("/App/Banner", "unmounted", 9)


def test_a_commits_watch_tells_every_commit_with_its_cause(daemon: Daemon, client: milieu.Client) -> None:
    monitor = client.watch(commits=True)
    assert monitor.commits
    with milieu.Client(daemon.socket) as writer:
        version = writer.set("login.email", "kim@example.com")["version"]
        writer.register([{"name": "Note", "style": "observable", "properties": {"text": {"type": "string", "default": ""}}}])
    wrote = monitor.next(timeout=5)
    assert isinstance(wrote, milieu.DidCommit) and wrote.version == version
    assert wrote.cause is not None and wrote.cause["client"] == "milieu-py" and wrote.cause["pid"] == os.getpid()
    assert wrote.cause["ops"] == [{"method": "graph/set", "path": "login.email"}]
    assert wrote.counts["values"] == 2 and wrote.counts["rendered"] == 0
    registered = monitor.next(timeout=5)
    assert isinstance(registered, milieu.DidCommit) and registered.version == version + 1
    assert registered.cause is not None and registered.cause["method"] == "schema/register"
    assert set(registered.counts.values()) == {0}


def test_a_watch_says_which_target_a_destroyed_object_ends(client: milieu.Client) -> None:
    client.mount(parent="/App", name="Container", state={"toggle": False})
    client.mount(
        parent="/App/Container", name="LoginView2", inputs={"t": {"$parent": "toggle"}},
        observed_objects={"loginVM": {"construct": "LoginViewModel"}},
    )
    email = client.watch(paths="/App/Container/LoginView2.loginVM.email")
    client.set("/App/Container.toggle", True)
    gone = email.next(timeout=5)
    assert isinstance(gone, milieu.ObjectDestroyed) and gone.reason == "replaced"
    assert gone.ended_targets == ("/App/Container/LoginView2.loginVM.email",)


def test_a_view_watch_waits_for_a_view_not_mounted_yet(client: milieu.Client) -> None:
    later = client.watch(views="/App/Later")
    assert later.not_mounted == ("/App/Later",)
    client.mount(parent="/App", name="Later", body=["here"])
    mounted = later.next(timeout=5)
    assert isinstance(mounted, milieu.DidMount) and mounted.path == "/App/Later"
    assert client.watch(views="/App/Later").not_mounted == ()


def test_for_loop_iterates_in_version_order(client: milieu.Client) -> None:
    watch = client.watch(paths="theme.accentColor")
    for color in ("red", "green", "blue"):
        client.set("theme.accentColor", color)
    seen: List[str] = []
    for n in watch:
        assert isinstance(n, milieu.DidChange)
        seen.append(n.changes[0].value)
        if len(seen) == 3:
            break
    assert seen == ["red", "green", "blue"]
    assert watch.last_version == 4


def test_next_times_out_when_nothing_comes(client: milieu.Client) -> None:
    watch = client.watch(paths="theme")
    with pytest.raises(milieu.Timeout):
        watch.next(timeout=0.05)
    client.set("theme.accentColor", "red")
    assert isinstance(watch.next(timeout=5), milieu.DidChange)


def test_one_transaction_is_one_version(client: milieu.Client) -> None:
    watch = client.watch(paths=["login", "theme"])
    result = client.transaction([ops.set("login.email", "kim@example.com"), ops.set("theme.accentColor", "red")])
    n = watch.next(timeout=5)
    assert isinstance(n, milieu.DidChange) and n.version == result["version"]
    assert n.values() == {"login.email": "kim@example.com", "theme.accentColor": "red", "login.isValidEmail": True}


def test_a_waiting_iterator_wakes_for_a_notification_from_another_thread(client: milieu.Client) -> None:
    watch = client.watch(paths="session")
    received: List[milieu.Notification] = []
    consumer = threading.Thread(target=lambda: received.append(watch.next(timeout=10)))
    consumer.start()
    client.call("session.start", "kim")
    consumer.join(10)
    assert len(received) == 1 and isinstance(received[0], milieu.DidChange)
    assert received[0].values()["session.user"] == "kim"


def test_closing_the_client_ends_iteration(client: milieu.Client) -> None:
    watch = client.watch(paths="login")
    client.set("login.email", "kim@example.com")
    client.initialize()  # its response follows the notification of version 2
    client.close()
    assert [n.version for n in watch] == [2], "what was received is still delivered, then iteration stops"

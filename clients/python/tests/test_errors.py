"""Typed errors: each error kind of the daemon arrives as its class, with ``error.data`` as attributes."""

from __future__ import annotations

from typing import Any, Callable, Type, TypeVar

import pytest

import milieu
from milieu import ops

from conftest import Daemon

E = TypeVar("E", bound=milieu.MilieuError)


def raises(cls: Type[E], action: Callable[[], Any]) -> E:
    with pytest.raises(cls) as info:
        action()
    error = info.value
    assert type(error) is cls
    assert error.kind == cls.__name__ == error.data["kind"]
    return error


def mount_levels(c: milieu.Client) -> None:
    """S7's tree: /App/Level1 owns a Cart it does not provide."""
    c.transaction(
        [
            ops.mount(parent="/App", name="Level1", state_objects={"cart": {"type": "Cart"}}),
            ops.mount(parent="/App/Level1", name="Level2"),
        ]
    )


def test_environment_object_missing_carries_its_fields(client: milieu.Client) -> None:
    mount_levels(client)
    before = client.initialize()["version"]
    error = raises(
        milieu.EnvironmentObjectMissing,
        lambda: client.mount(
            parent="/App/Level1/Level2", name="CheckoutView", environment_objects={"cart": "Cart"}, body=["{cart.items}"]
        ),
    )
    assert error.code == -32000
    assert error.message == (
        "No ObservableObject of type Cart found. A View.environmentObject(_:) for Cart may be missing as an "
        "ancestor of this view."
    )
    assert error.type == "Cart"
    assert error.view == "/App/Level1/Level2/CheckoutView"
    assert error.variable == "cart"
    assert list(error.searched) == ["/App/Level1/Level2/CheckoutView", "/App/Level1/Level2", "/App/Level1", "/App"]
    assert "Cart" in error.hint and "view/provide" in error.hint
    assert client.initialize()["version"] == before, "a failed mount commits nothing"
    # After an ancestor provides a Cart the same mount succeeds; withdrawing it is then InUse.
    client.provide("/App/Level1", environment_objects=["cart"])
    mounted = client.mount(
        parent="/App/Level1/Level2", name="CheckoutView", environment_objects={"cart": "Cart"}, body=["{cart.items}"]
    )
    assert mounted["objects"] == {"cart": "Cart#4"}
    in_use = raises(milieu.InUse, lambda: client.provide("/App/Level1", withdraw=["Cart"]))
    assert in_use.code == -32009
    assert in_use.provided == "Cart" and in_use.view == "/App/Level1"
    assert list(in_use.dependents) == ["/App/Level1/Level2/CheckoutView"]


def test_error_in_a_transaction_names_the_op(client: milieu.Client) -> None:
    error = raises(
        milieu.InvalidValue,
        lambda: client.transaction(
            [ops.set("theme.colorScheme", "dark"), ops.set("theme.colorScheme", "sepia")]
        ),
    )
    assert error.op == 1 and error.path == "theme.colorScheme" and error.value == "sepia"
    assert client.get("theme.colorScheme") == "light"


def test_unknown_path(client: milieu.Client) -> None:
    error = raises(milieu.UnknownPath, lambda: client.get("login.emial"))
    assert error.code == -32001 and error.path == "login.emial" and error.op is None
    assert error.suggestions == ["email"] and "did you mean email?" in str(error)
    method = raises(milieu.MethodNotFound, lambda: client.request("graph/gett", {}))
    assert method.suggestions == ["graph/get", "graph/set"]


def test_unknown_type(client: milieu.Client) -> None:
    error = raises(
        milieu.UnknownType,
        lambda: client.register([{"name": "Team", "style": "observable", "properties": {"lead": {"type": "@Person?"}}}]),
    )
    assert error.code == -32002 and error.type == "Person"


def test_unknown_action(client: milieu.Client) -> None:
    error = raises(milieu.UnknownAction, lambda: client.call("login.signIn"))
    assert error.code == -32003
    assert (error.path, error.action, error.type) == ("login.signIn", "signIn", "Login")


def test_type_mismatch(client: milieu.Client) -> None:
    error = raises(milieu.TypeMismatch, lambda: client.set("theme.fontScale", "big"))
    assert error.code == -32004
    assert (error.path, error.expected, error.actual) == ("theme.fontScale", "double", "string")


def test_read_only(client: milieu.Client) -> None:
    error = raises(milieu.ReadOnly, lambda: client.set("login.isValidEmail", True))
    assert error.code == -32005 and error.path == "login.isValidEmail" and error.reason == "computed"


def test_version_conflict(client: milieu.Client) -> None:
    client.set("login.email", "kim@example.com")
    error = raises(milieu.VersionConflict, lambda: client.set("login.email", "lee@example.com", if_version=1))
    assert error.code == -32006
    assert (error.path, error.expected, error.actual) == ("login.email", 1, 2)


def test_duplicate_view(client: milieu.Client) -> None:
    client.mount(parent="/App", name="Banner")
    error = raises(milieu.DuplicateView, lambda: client.mount(parent="/App", name="Banner"))
    assert error.code == -32007 and error.path == "/App/Banner"


def test_invalid_declaration(client: milieu.Client) -> None:
    error = raises(milieu.InvalidDeclaration, lambda: client.mount(parent="/App", name="Badge", body=["{count}"]))
    assert error.code == -32008 and error.field and error.reason


def test_forbidden(client: milieu.Client) -> None:
    client.set("login.password", "hunter22")
    secure = raises(milieu.Forbidden, lambda: client.get("login.password"))
    assert secure.code == -32011 and secure.path == "login.password" and secure.reason == "secure"
    root = raises(milieu.Forbidden, lambda: client.unmount("/App"))
    assert root.path == "/App" and root.reason == "root"


def test_invalid_value(client: milieu.Client) -> None:
    error = raises(milieu.InvalidValue, lambda: client.set("theme.fontScale", 5))
    assert error.code == -32012 and error.path == "theme.fontScale"
    assert (error.constraint, error.value, error.op) == ("max", 5, None), "op belongs to transactions only"


def test_compacted(make_daemon: Callable[..., Daemon]) -> None:
    daemon = make_daemon("--history", "1")
    with milieu.Client(daemon.socket) as c:
        for scheme in ("dark", "light", "dark"):
            c.set("theme.colorScheme", scheme)
        error = raises(milieu.Compacted, lambda: c.watch(paths="theme", since_version=1))
        assert error.code == -32013 and isinstance(error.oldest, int) and error.oldest > 2


def test_limit_exceeded(client: milieu.Client) -> None:
    too_many = [ops.set("login.email", "a@b.co")] * 10001
    error = raises(milieu.LimitExceeded, lambda: client.transaction(too_many))
    assert error.code == -32014 and error.limit == "transactionOps" and error.max == 10000


def test_standard_errors_are_protocol_errors(client: milieu.Client) -> None:
    missing = raises(milieu.MethodNotFound, lambda: client.request("graph/gte"))
    assert isinstance(missing, milieu.ProtocolError) and missing.code == -32601 and missing.method == "graph/gte"
    params = raises(milieu.InvalidParams, lambda: client.request("graph/set", {"path": "login.email"}))
    assert isinstance(params, milieu.ProtocolError) and params.code == -32602 and params.field == "/value"
    unknown = raises(milieu.InvalidParams, lambda: client.request("graph/get", {"path": "login.email", "depth": 2}))
    assert unknown.field == "/depth"


def test_message_too_large_is_refused_before_sending(make_daemon: Callable[..., Daemon]) -> None:
    daemon = make_daemon("--max-line", "1000")
    with milieu.Client(daemon.socket) as c:
        error = raises(milieu.MessageTooLarge, lambda: c.set("login.email", "x" * 2000))
        assert error.limit == 1000
        assert c.set("login.email", "kim@example.com") == {"version": 2}, "the connection is still usable"
        assert c.reconnects == 0


def test_all_errors_are_milieu_errors(client: milieu.Client) -> None:
    with pytest.raises(milieu.MilieuError) as info:
        client.get("nothing.here")
    assert info.value.data["path"] == "nothing.here"
    assert repr(info.value).startswith("UnknownPath(code=-32001")


def test_daemon_errors_survive_pickle_and_cross_processes(client: milieu.Client, daemon: Daemon) -> None:
    # Issue #30, item 13: unpickling called __init__(message) and failed, so an error raised in
    # a ProcessPoolExecutor worker could not reach the caller.
    import pickle
    import subprocess
    import sys

    error = raises(milieu.UnknownPath, lambda: client.get("login.emial"))
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is milieu.UnknownPath
    assert (copy.code, copy.message, copy.data, copy.kind) == (error.code, error.message, error.data, error.kind)
    assert copy.path == "login.emial" and copy.suggestions == ["email"] and str(copy) == str(error)
    for made in (milieu.ConnectionLost("gone"), milieu.Timeout("slow"), milieu.Resync("compacted", 3, oldest=7)):
        again = pickle.loads(pickle.dumps(made))
        assert type(again) is type(made) and again.message == made.message and again.kind == made.kind
    assert pickle.loads(pickle.dumps(milieu.Resync("compacted", 3, oldest=7))).oldest == 7
    # Raised in another process and pickled there, as a worker's error is sent back to its pool.
    worker = (
        "import pickle, sys, milieu\n"
        "with milieu.Client(sys.argv[1], timeout=5.0) as c:\n"
        "    try:\n"
        "        c.get('login.emial')\n"
        "    except milieu.MilieuError as error:\n"
        "        sys.stdout.buffer.write(pickle.dumps(error))\n"
    )
    made = subprocess.run([sys.executable, "-c", worker, daemon.socket], capture_output=True, timeout=60, check=True)
    crossed = pickle.loads(made.stdout)
    assert type(crossed) is milieu.UnknownPath and crossed.suggestions == ["email"]


def test_entering_a_closed_client_raises_at_once(daemon: Daemon) -> None:
    client = milieu.Client(daemon.socket, timeout=5.0)
    with client:
        assert client.get("theme.colorScheme") == "light"
    with pytest.raises(ValueError, match="closed"):
        with client:
            pass


@pytest.mark.asyncio
async def test_entering_a_closed_async_client_raises_at_once(daemon: Daemon) -> None:
    client = milieu.AsyncClient(daemon.socket, timeout=5.0)
    async with client:
        assert await client.get("theme.colorScheme") == "light"
    with pytest.raises(ValueError, match="closed"):
        async with client:
            pass

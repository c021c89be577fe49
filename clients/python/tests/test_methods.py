"""Every request method of the sync client against a fresh daemon (default scene at version 1)."""

from __future__ import annotations

import os
import pathlib
import pickle
from typing import Callable

import pytest

import milieu
from milieu import ops

from conftest import Daemon


def test_connect_sends_initialize_and_context_manager_closes(daemon: Daemon) -> None:
    c = milieu.Client(daemon.socket)
    assert not c.connected
    with c as entered:
        assert entered is c and c.connected
        assert c.server_info is not None
        assert c.server_info["protocolVersion"] == "1"
        assert c.server_info["version"] == 1
        assert c.instance == c.server_info["instance"]
    assert not c.connected
    try:
        c.get("login.email")
    except milieu.ConnectionLost as e:
        assert "closed" in str(e)
    else:
        raise AssertionError("a closed client answered")


def test_request_before_connect_is_refused(daemon: Daemon) -> None:
    c = milieu.Client(daemon.socket)
    try:
        c.types()
    except milieu.ConnectionLost as e:
        assert "not connected" in str(e)
    else:
        raise AssertionError("an unconnected client answered")


def test_connect_fails_without_a_daemon_and_can_be_tried_again(make_daemon: Callable[..., Daemon]) -> None:
    daemon = make_daemon(start=False)
    c = milieu.Client(daemon.socket)
    try:
        c.connect()
    except milieu.ConnectionLost as e:
        assert "cannot connect" in str(e)
    else:
        raise AssertionError("connected to nothing")
    daemon.start()
    with c:
        assert c.get("theme.accentColor") == "blue"


def test_initialize_again(client: milieu.Client) -> None:
    result = client.initialize()
    assert result["server"]["name"] == "milieud"
    assert result["capabilities"]["resumableWatches"] is True
    assert result["instance"] == client.instance


def test_types_and_register(client: milieu.Client) -> None:
    names = [t["name"] for t in client.types()["types"]]
    assert {"Session", "Theme", "Login", "Cart", "AppState"} <= set(names)
    registered = client.register(
        [{"name": "Profile", "style": "observable", "properties": {"age": {"type": "int", "default": 3}}}]
    )
    assert registered == {"types": ["Profile"], "environmentKeys": [], "version": 2}
    profile = [t for t in client.types()["types"] if t["name"] == "Profile"][0]
    assert profile["properties"][0]["default"] == 3
    client.register(environment_keys={"tone": {"type": "string", "default": "warm"}})
    keys = {k["name"]: k for k in client.types()["environmentKeys"]}
    assert keys["colorScheme"] == {
        "name": "colorScheme", "type": "string", "default": "light", "builtIn": True, "oneOf": ["light", "dark"]
    }
    assert keys["tone"] == {"name": "tone", "type": "string", "default": "warm", "builtIn": False}


def test_types_name_the_parameters_whose_argument_is_a_secret(client: milieu.Client) -> None:
    client.register([{
        "name": "Vault", "style": "observable", "properties": {"pin": {"type": "string", "secure": True}},
        "actions": {
            "setPin": {"parameters": [{"name": "pin", "type": "string"}], "steps": [{"set": "pin", "to": {"arg": "pin"}}]},
            "touch": {"parameters": [{"name": "why", "type": "string"}], "steps": []},
        },
    }])
    vault = [t for t in client.types()["types"] if t["name"] == "Vault"][0]
    assert vault["actions"] == [
        {"name": "setPin", "params": ["pin: string"], "secureParams": ["pin"]},
        {"name": "touch", "params": ["why: string"]},
    ]


def test_get_set_and_if_version(client: milieu.Client) -> None:
    assert client.get("theme.fontScale") == 1.0
    assert isinstance(client.get("theme.fontScale"), float)
    assert client.set("login.email", "kim@example.com") == {"version": 2}
    assert client.set("login.email", "kim@example.com") == {"version": 2}, "an equal write takes no version"
    assert client.get("login")["values"]["isValidEmail"] is True
    assert client.set("login.email", "lee@example.com", if_version=2) == {"version": 3}
    assert client.get("login.email") == "lee@example.com"


def test_call(client: milieu.Client) -> None:
    assert client.call("session.start", "kim") == {"result": None, "version": 2}
    assert client.get("session.user") == "kim"
    assert client.call("session.end")["version"] == 3


def test_transaction_with_op_builders(client: milieu.Client) -> None:
    result = client.transaction(
        [
            ops.set("login.email", "kim@example.com"),
            ops.call("login.login"),
            ops.mount(parent="/App", name="Shop", state_objects={"cart": {"type": "Cart"}}, body=["{cart.items}"]),
            ops.call("/App/Shop.cart.add", "apple"),
            ops.provide("/App/Shop", environment_objects=["cart"], environment={"locale": "ko_KR"}),
        ]
    )
    assert result["version"] == 2
    assert [r["version"] for r in result["results"]] == [2] * 5
    assert result["results"][2]["body"] == ["[\"apple\"]"]
    assert client.get("login.isUserLoggedIn") is True
    tree = client.tree("/App/Shop")["root"]
    assert tree["provides"]["environment"] == {"locale": "ko_KR"}
    assert list(tree["provides"]["environmentObjects"]) == ["Cart"]
    assert client.transaction([ops.unmount("/App/Shop")])["version"] == 3


def test_mount_by_keywords_and_by_declaration(client: milieu.Client) -> None:
    by_keywords = client.mount(
        parent="/App",
        name="StartView",
        state={"selectedNum": 10},
        body=["selected: {selectedNum}"],
    )
    assert by_keywords == {"path": "/App/StartView", "body": ["selected: 10"], "objects": {}, "version": 2}
    by_declaration = client.mount(
        {
            "parent": "/App/StartView",
            "name": "ContentView",
            "id": {"$parent": "selectedNum"},
            "inputs": {"num": {"$parent": "selectedNum"}},
            "stateObjects": {"viewModel": {"type": "ViewModel", "init": {"num": {"$input": "num"}}}},
            "body": ["num: {viewModel.num}"],
        }
    )
    assert by_declaration == {
        "path": "/App/StartView/ContentView[10]",
        "body": ["num: 10"],
        "objects": {"viewModel": "ViewModel#4"},
        "version": 3,
    }
    # Keywords extend (and override) a declaration given in wire form.
    mixed = client.mount({"parent": "/App", "name": "X"}, name="Badge", observed_objects={"vm": {"object": "ViewModel#4"}})
    assert mixed["path"] == "/App/Badge" and mixed["objects"] == {"vm": "ViewModel#4"}


def test_mount_with_state_types(client: milieu.Client) -> None:
    # `@State var name: String? = "kim"`: state_types is the wire's stateTypes (SPEC 6.1).
    assert ops.declaration(state={"name": "kim"}, state_types={"name": "string?"}) == {
        "state": {"name": "kim"},
        "stateTypes": {"name": "string?"},
    }
    client.mount(parent="/App", name="Named", state={"name": "kim"}, state_types={"name": "string?"}, body=["{name}"])
    client.set("/App/Named.name", None)
    assert client.get("/App/Named.name") is None
    with pytest.raises(milieu.TypeMismatch):
        client.set("/App/Named.name", 3)


def test_unmount_and_tree(client: milieu.Client) -> None:
    client.mount(parent="/App", name="ParentView", state={"isOn": False}, body=["{isOn}"])
    client.mount(
        parent="/App/ParentView",
        name="ToggleRow",
        bindings={"isOn": {"$parent": "isOn"}},
        environment=["colorScheme"],
        body=["switch: {isOn}"],
    )
    tree = client.tree()
    assert tree["version"] == 3
    root = tree["root"]
    assert root["path"] == "/App" and root["retained"] is True
    assert [child["path"] for child in root["children"]] == ["/App/ParentView"]
    row = client.tree("/App/ParentView")["root"]["children"][0]
    assert row["bindings"] == {"isOn": {"source": "/App/ParentView.isOn", "value": False}}
    assert (row["evaluations"], row["lastEvaluated"]) == (1, 3)
    assert client.unmount("/App/ParentView") == {"version": 4}
    assert client.tree()["root"]["children"] == []


def test_explain_names_the_request_the_attribute_and_the_view(client: milieu.Client) -> None:
    client.mount(parent="/App", name="ParentView", state={"isOn": False}, body=["{isOn}"])
    client.mount(parent="/App/ParentView", name="ToggleRow", bindings={"isOn": {"$parent": "isOn"}}, body=["{isOn}"])
    version = client.set("/App/ParentView/ToggleRow.isOn", True)["version"]
    explained = client.explain(version)
    assert explained["cause"] is not None and explained["cause"]["ops"] == [
        {"method": "graph/set", "path": "/App/ParentView/ToggleRow.isOn"}
    ]
    state = next(node for node in explained["nodes"] if node["kind"] == "attribute")
    assert (state["path"], state["new"]) == ("/App/ParentView.isOn", True)
    views = {node["path"]: node for node in explained["nodes"] if node["kind"] == "view"}
    assert views["/App/ParentView"]["reasons"] == ["_isOn"] and views["/App/ParentView"]["order"] == 0
    edges = {(edge["from"], edge["to"], edge["kind"]) for edge in explained["edges"]}
    assert ("cause", state["id"], "wrote") in edges
    assert (state["id"], views["/App/ParentView"]["id"], "invalidated") in edges
    with pytest.raises(milieu.MilieuError) as refused:
        client.explain(version + 100)
    assert refused.value.code == -32602


def test_lines_longer_than_the_request_limit_are_read(client: milieu.Client) -> None:
    big = "x" * 700_000
    client.mount(parent="/App", name="A", state={"s": big})
    client.mount(parent="/App", name="B", state={"s": big + "y"})
    children = client.tree()["root"]["children"]  # one line of about 1.4 MB
    assert [child["state"]["s"] for child in children] == [big, big + "y"]


def test_provide_and_withdraw(client: milieu.Client) -> None:
    assert client.provide("/App", environment={"locale": "ko_KR"}) == {"version": 2}
    assert client.get("/App")["provides"]["environment"] == {"locale": "ko_KR"}
    client.mount(parent="/App", name="Reader", environment=["locale"], body=["locale: {locale}"])
    assert client.get("/App/Reader")["body"] == ["locale: ko_KR"]
    assert client.provide("/App", withdraw=["locale"]) == {"version": 4}
    assert client.get("/App")["provides"]["environment"] == {}
    assert client.get("/App/Reader")["body"] == ["locale: en_US"], "an unprovided key reads its default"
    with pytest.raises(milieu.InvalidParams) as info:
        client.provide("/App", withdraw=["locale"])
    assert info.value.field == "/withdraw/0"


def test_watch_and_unwatch(client: milieu.Client) -> None:
    watch = client.watch(paths="login")
    assert watch.id == 1 and watch.paths == ("login",) and watch.last_version == 1
    client.set("login.email", "kim@example.com")
    change = watch.next(timeout=5)
    assert isinstance(change, milieu.DidChange)
    assert change.values() == {"login.email": "kim@example.com", "login.isValidEmail": True}
    client.unwatch(watch)
    client.set("login.email", "lee@example.com")
    assert list(watch) == [], "no notification follows unwatch"
    try:
        client.request("unwatch", {"watch": 1})
    except milieu.InvalidParams as e:
        assert e.field == "/watch"
    else:
        raise AssertionError("the daemon still had watch 1")


def test_watch_context_manager_unwatches(client: milieu.Client) -> None:
    with client.watch(views="/App") as watch:
        assert watch.views == ("/App",)
    second = client.watch(lifecycle=True)
    assert second.id == 2
    try:
        client.request("unwatch", {"watch": 1})
    except milieu.InvalidParams:
        pass
    else:
        raise AssertionError("the with block left watch 1 open")


def test_watch_since_version_replays(client: milieu.Client) -> None:
    client.set("theme.colorScheme", "dark")
    watch = client.watch(paths=["theme.colorScheme"], since_version=1)
    change = watch.next(timeout=5)
    assert isinstance(change, milieu.DidChange) and change.version == 2
    assert change.changes == (milieu.Change("theme.colorScheme", "dark"),)


def test_dependencies_readers_and_environment_say_why(client: milieu.Client) -> None:
    client.mount(
        parent="/App",
        name="Shop",
        state_objects={"cart": {"type": "Cart"}},
        state={"note": ""},
        environment={"login": {"type": "Login"}},
        provide={"environmentObjects": ["cart"], "environment": {"colorScheme": "dark"}},
        body=["{note} {login.isValidEmail}"],
    )
    client.mount(parent="/App/Shop", name="CartList", environment_objects={"cart": "Cart"}, body=["{cart.items}"])
    deps = client.dependencies("/App/Shop")
    assert deps["path"] == "/App/Shop" and deps["version"] == 3
    assert [(d["kind"], d["reasons"]) for d in deps["dependencies"]] == [
        ("state", ["_note"]),
        ("object", ["_cart"]),
        ("property", ["login.email"]),
    ]
    assert deps["dependencies"][2]["path"] == "Login#3.email"
    assert client.readers("login.isValidEmail")["readers"] == [{"view": "/App/Shop", "reasons": ["login.email"]}]
    assert [r["view"] for r in client.readers("/App/Shop.cart.items")["readers"]] == ["/App/Shop", "/App/Shop/CartList"]
    env = client.environment("/App/Shop/CartList")
    assert env["environmentObjects"] == [{"type": "Cart", "object": "Cart#4", "provider": "/App/Shop"}]
    assert {"key": "colorScheme", "value": "dark", "provider": "/App/Shop"} in env["environment"]
    with pytest.raises(milieu.UnknownPath):
        client.readers("login.nope")


def test_see_why_never_shows_a_secure_value(client: milieu.Client) -> None:
    client.set("login.password", "hunter2-python")
    client.set("session.token", "token-python-42")
    client.mount(
        parent="/App",
        name="Secrets",
        environment={"login": {"type": "Login"}, "session": {"type": "Session"}},
        body=["{login.password} {session.token}"],
    )
    answers = [
        client.dependencies("/App/Secrets"),
        client.readers("login.password"),
        client.readers("session.token"),
        client.environment("/App/Secrets"),
    ]
    text = repr(answers)
    assert "hunter2-python" not in text and "token-python-42" not in text
    assert answers[1]["readers"] == [{"view": "/App/Secrets", "reasons": ["login.password"]}]


def test_reset_goes_back_to_the_scenes_start(client: milieu.Client) -> None:
    client.mount(parent="/App", name="Kept", retain=True)
    client.set("theme.colorScheme", "dark")
    planned = client.reset(dry_run=True)
    # The secure values are listed, and set back, whatever they are (rule 13).
    secure = ["/App.session.token", "/App.login.password"]
    assert (planned["unmounted"], planned["written"]) == (["/App/Kept"], ["/App.session.token", "/App.theme.colorScheme", "/App.login.password"])
    assert client.get("theme.colorScheme") == "dark"
    done = client.reset()
    assert done["version"] == planned["version"] + 1 and done["unmounted"] == ["/App/Kept"]
    assert client.get("theme.colorScheme") == "light"
    with pytest.raises(milieu.UnknownPath):
        client.get("/App/Kept")
    assert client.reset()["written"] == secure


def test_daemon_info_counts_what_the_daemon_serves(daemon: Daemon, client: milieu.Client) -> None:
    info = client.daemon_info()
    assert info["server"]["name"] == "milieud" and info["protocolVersion"] == "1"
    assert info["instance"] == client.instance and info["socket"] == daemon.socket
    assert info["connections"] == 1 and info["watches"] == 0 and info["version"] == client.get("theme")["version"]
    assert info["memory"]["residentBytes"] > 1 << 20
    views, objects = info["views"], info["objects"]
    with milieu.Client(daemon.socket) as other:
        other.mount(parent="/App", name="Probe", state_objects={"cart": {"type": "Cart"}})
        with client.watch(paths=["theme"]):
            busier = client.daemon_info()
            assert (busier["connections"], busier["watches"]) == (2, 1)
            assert (busier["views"], busier["objects"]) == (views + 1, objects + 1)


def test_daemon_clients_names_each_connection(daemon: Daemon, client: milieu.Client) -> None:
    with milieu.Client(daemon.socket) as other:
        other.mount(parent="/App", name="Probe")
        with client.watch(paths=["theme"]):
            listed = client.daemon_clients()["clients"]
    assert [c["self"] for c in listed] == [True, False]
    assert all(c["pid"] == os.getpid() and c["uid"] == os.getuid() and c["name"] == "milieu-py" for c in listed)
    assert [(c["watches"], c["views"]) for c in listed] == [(1, 0), (0, 1)]
    assert listed[0]["connection"] < listed[1]["connection"]


def test_discover(client: milieu.Client) -> None:
    document = client.discover()
    assert document["openrpc"] == "1.3.2"
    assert {"initialize", "graph/get", "watch", "shutdown"} <= {m["name"] for m in document["methods"]}


def test_raw_request(client: milieu.Client) -> None:
    assert client.request("graph/get", {"path": "theme.accentColor"}) == "blue"


def test_shutdown_stops_the_daemon_and_closes_the_client(daemon: Daemon) -> None:
    c = milieu.Client(daemon.socket).connect()
    watch = c.watch(paths="login")
    c.shutdown()
    assert daemon.process is not None and daemon.process.wait(10) == 0
    assert not c.connected and c.reconnects == 0
    assert list(watch) == []



def _mount_rows(client: milieu.Client, count: int, body: str) -> None:
    client.mount(parent="/App", name="List")
    for first in range(0, count, 50):
        client.transaction(
            [ops.mount(parent="/App/List", name="Row", id=n, body=[body]) for n in range(first, min(first + 50, count))]
        )


def test_tree_follows_cursors_and_puts_the_pages_together(client: milieu.Client) -> None:
    _mount_rows(client, 120, "row")
    client.mount(parent="/App/List/Row[7]", name="Detail")
    tree = client.tree("/App/List", page_size=25)
    root = tree["root"]
    assert root["path"] == "/App/List" and "parent" not in root
    assert [row["path"] for row in root["children"]] == [f"/App/List/Row[{n}]" for n in range(120)]
    assert [child["path"] for child in root["children"][7]["children"]] == ["/App/List/Row[7]/Detail"]
    assert tree["version"] == client.initialize()["version"]


def test_tree_with_a_depth_counts_the_children_it_leaves_out(client: milieu.Client) -> None:
    _mount_rows(client, 3, "row")
    root = client.tree(depth=1)["root"]
    (listing,) = root["children"]
    assert listing["path"] == "/App/List" and listing["childCount"] == 3 and "children" not in listing


def test_a_tree_over_the_output_limit_is_result_too_large_whole_and_comes_in_pages(
    make_daemon: Callable[..., Daemon],
) -> None:
    daemon = make_daemon("--output-limit", "65536,32768,30")
    with milieu.Client(daemon.socket) as client:
        _mount_rows(client, 400, "b" * 200)
        with pytest.raises(milieu.ResultTooLarge) as refused:
            client.request("view/tree", {"path": "/App/List"})
        assert refused.value.limit == 65536 and refused.value.method == "view/tree"
        assert len(client.tree("/App/List", page_size=100)["root"]["children"]) == 400


def test_controls_are_listed_pressed_and_typed_into(client: milieu.Client) -> None:
    client.mount(
        parent="/App", name="Counter", state={"count": 0, "note": ""}, print_changes=True,
        body=[
            {"text": {"get": "count"}},
            {"button": "+", "action": [{"set": "count", "to": {"+": [{"get": "count"}, 1]}}]},
            {"textField": "Note", "text": "note"},
            {"disabled": True, "content": [{"button": "Reset", "action": [{"set": "count", "to": 0}]}]},
        ],
    )
    listed = client.controls("/App/Counter")
    assert [(c["kind"], c["label"], c["disabled"]) for c in listed["controls"]] == [
        ("button", "+", False), ("textField", "Note", False), ("button", "Reset", True),
    ]
    with client.watch(views=["/App/Counter"]) as watch:
        version = client.tap("/App/Counter", "+")
        change = watch.next(timeout=5)
        assert isinstance(change, milieu.DidChange) and change.values() == {"/App/Counter.count": 1}
        update = watch.next(timeout=5)
        assert isinstance(update, milieu.DidUpdate) and update.version == version
        assert update.body[0] == "1" and update.print_changes == "Counter: _count changed."
    client.input("/App/Counter", "Note", "hello")
    assert client.controls("/App/Counter")["controls"][1]["value"] == "hello"
    with pytest.raises(milieu.Forbidden):
        client.tap("/App/Counter", "Reset")
    with pytest.raises(milieu.UnknownPath):
        client.tap("/App/Counter", "-")
    with pytest.raises(milieu.InvalidParams):
        client.input("/App/Counter", "Note", 3)


def test_a_closure_passed_to_a_child_runs_in_the_parent(client: milieu.Client) -> None:
    bump = ops.closure({"set": "taps", "to": {"+": [{"get": "taps"}, {"get": "by"}]}}, params=["by"])
    client.mount(
        parent="/App", name="Counter", state={"taps": 0},
        body=[
            "taps {taps}",
            {"view": {"name": "Row", "inputs": {"onTap": bump}, "body": [{"button": "tap", "action": [{"call": "onTap", "args": [2]}]}]}},
            {"view": {"name": "Quiet", "inputs": {"onTap": bump, "n": 1}, "equatable": ["n"], "body": ["n"]}},
        ],
    )
    with client.watch(views=["/App/Counter"]) as watch:
        version = client.tap("/App/Counter/Row", "tap")
        assert client.get("/App/Counter.taps") == 2
        updated = [watch.next(timeout=5) for _ in range(3)]
        assert [type(n).__name__ for n in updated] == ["DidChange", "DidUpdate", "DidUpdate"]
        assert [n.path for n in updated[1:] if isinstance(n, milieu.DidUpdate)] == ["/App/Counter", "/App/Counter/Row"]
        assert all(n.version == version for n in updated)
    assert client.tree("/App/Counter/Row")["root"]["inputs"]["onTap"] == "<closure (by)>"
    assert client.tree("/App/Counter/Quiet")["root"]["evaluations"] == 1, "its == compares n alone"


def test_a_watch_with_print_changes_gets_every_views_line(client: milieu.Client) -> None:
    with client.watch(views=["/App/Counter"], print_changes=True) as every, client.watch(views=["/App/Counter"]) as plain:
        client.mount(
            parent="/App", name="Counter", state={"count": 0},
            body=["{count}", {"button": "+", "action": [{"set": "count", "to": {"+": [{"get": "count"}, 1]}}]}],
        )
        mounted = every.next(timeout=5)
        assert isinstance(mounted, milieu.DidMount)
        assert mounted.print_changes == "Counter: @self, @identity, _count changed."
        assert (plain_mount := plain.next(timeout=5)).path == "/App/Counter"
        assert isinstance(plain_mount, milieu.DidMount) and plain_mount.print_changes is None
        client.tap("/App/Counter", "+")
        assert isinstance(every.next(timeout=5), milieu.DidChange)
        update = every.next(timeout=5)
        assert isinstance(update, milieu.DidUpdate) and update.print_changes == "Counter: _count changed."


SEEDS = pathlib.Path(__file__).resolve().parents[3] / "seeds"


def test_swift_source_is_translated_loaded_and_driven(client: milieu.Client) -> None:
    scene = milieu.translate(SEEDS / "000_00.swift")
    assert any("roundedField()" in line for line in scene["diagnostics"])
    loaded = client.load(scene)
    assert loaded["types"] == ["LoginViewModel"] and loaded["views"] == ["/App/ContainerView"]
    email = "이메일을 입력해 주세요..."
    for view in ("LoginView1", "LoginView2"):
        client.input(f"/App/ContainerView/{view}", email, "kim@example.com")
    client.input("/App/ContainerView", "토글해봅시다", True)
    assert client.get("/App/ContainerView/LoginView1.loginVM.email") == "kim@example.com"
    assert client.get("/App/ContainerView/LoginView2.loginVM.email") == ""


def test_swift_source_with_an_error_names_it(tmp_path: pathlib.Path) -> None:
    with pytest.raises(milieu.TranslationError) as raised:
        milieu.translate(SEEDS / "004_03.swift")
    assert any("code is left out here" in line for line in raised.value.diagnostics)
    assert pickle.loads(pickle.dumps(raised.value)).diagnostics == raised.value.diagnostics


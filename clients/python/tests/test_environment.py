"""The two observation systems and the environment (SPEC §6.1, §6.2, §9.3, §9.10), through both
clients: an ``@Observable`` object owned with ``@State`` (``ops.new``), provided with
``.environment(x)`` (``observables``) and read with ``@Environment(T.self)``; custom environment
keys declared with ``register(environment_keys=...)`` and read by a view; ``$new`` objects'
lifecycle reasons."""

from __future__ import annotations

import inspect
from typing import Any, List, Tuple, Type

import pytest

import milieu
from milieu import ops

from conftest import Daemon
from test_drivers import DRIVERS, AnyClient, connected, done, run


async def drain(client: AnyClient, watch: Any) -> List[milieu.Notification]:
    """Every notification the watch has for the versions committed so far."""
    await done(client.initialize())  # answered after every notification of the versions so far
    received: List[milieu.Notification] = []
    while True:
        try:
            received.append(await done(watch.next(timeout=0)))
        except milieu.Timeout:
            return received


def lifecycle(notifications: List[milieu.Notification]) -> List[Tuple[str, str, Any, str]]:
    return [
        (n.method, n.object, n.owner, n.reason)
        for n in notifications
        if isinstance(n, (milieu.ObjectCreated, milieu.ObjectDestroyed))
    ]


def test_expression_builders() -> None:
    assert ops.parent("state.favoritePrimes") == {"$parent": "state.favoritePrimes"}
    assert ops.input("num") == {"$input": "num"}
    assert ops.constant(True) == {"$constant": True}
    assert ops.constant(ops.parent("on")) == {"$constant": {"$parent": "on"}}
    assert ops.literal({"$parent": "x"}) == {"$literal": {"$parent": "x"}}
    assert ops.new("Counter") == {"$new": {"type": "Counter"}}
    assert ops.new("Counter", count=ops.parent("n")) == {"$new": {"type": "Counter", "init": {"count": {"$parent": "n"}}}}
    assert ops.new("Note", type="memo") == {"$new": {"type": "Note", "init": {"type": "memo"}}}, "init may name a property type"


def test_provide_and_register_take_keywords() -> None:
    assert ops.provide("/App", observables=("counter",), environment_objects=["cart"], withdraw=["locale"]) == {
        "method": "view/provide",
        "params": {"path": "/App", "environmentObjects": ["cart"], "observables": ["counter"], "withdraw": ["locale"]},
    }
    with pytest.raises(TypeError):
        ops.provide("/App", ["cart"])  # type: ignore[misc]
    for driver in (milieu.Client, milieu.AsyncClient):
        provide = inspect.signature(driver.provide).parameters
        assert [name for name, p in provide.items() if p.kind is not p.KEYWORD_ONLY] == ["self", "path"]
        assert list(provide) == ["self", "path", "environment_objects", "observables", "environment", "withdraw", "timeout"]
        register = inspect.signature(driver.register).parameters
        assert [(name, p.kind) for name, p in register.items()][1:3] == [
            ("types", inspect.Parameter.POSITIONAL_OR_KEYWORD), ("environment_keys", inspect.Parameter.KEYWORD_ONLY),
        ]


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_observable_is_provided_with_environment_and_read_with_environment_type(
    driver: Type[AnyClient], daemon: Daemon
) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, timeout=5.0) as c:
            # @State var counter = Counter(count: 3), and .environment(counter) in the declaration.
            shop = await done(
                c.mount(
                    parent="/App",
                    name="Shop",
                    state={"counter": ops.new("Counter", count=3)},
                    provide={"observables": ["counter"]},
                )
            )
            assert shop == {"path": "/App/Shop", "body": [], "objects": {"counter": "Counter#4"}, "version": 2}
            badge = await done(
                c.mount(
                    parent="/App/Shop",
                    name="Badge",
                    environment={"counter": {"type": "Counter"}},
                    body=["count: {counter.count}"],
                )
            )
            assert badge == {"path": "/App/Shop/Badge", "body": ["count: 3"], "objects": {"counter": "Counter#4"}, "version": 3}
            node = (await done(c.tree("/App/Shop")))["root"]
            assert node["provides"] == {"environmentObjects": {}, "observables": {"Counter": "Counter#4"}, "environment": {}}
            assert node["objects"]["counter"] == {"object": "Counter#4", "type": "Counter", "wrapper": "state"}
            assert node["children"][0]["objects"]["counter"] == {"object": "Counter#4", "type": "Counter", "wrapper": "environment"}

            watch = await done(c.watch(views="/App"))
            await done(c.call("/App/Shop.counter.add"))
            [update] = await drain(c, watch)
            assert isinstance(update, milieu.DidUpdate)
            assert (update.path, update.reasons, update.body) == ("/App/Shop/Badge", ("counter.count",), ("count: 4",))

            # An optional @Environment(Counter.self) reads null until an ancestor provides one.
            optional = await done(
                c.mount(parent="/App", name="Extra", environment={"extra": {"type": "Counter", "optional": True}}, body=["{extra}"])
            )
            assert optional["body"] == ["null"]
            assert (await done(c.get("/App/Extra")))["objects"] == {"extra": None}
            assert await done(c.provide("/App", observables=["/App/Shop.counter"])) == {"version": 6}
            appeared = [n for n in await drain(c, watch) if isinstance(n, milieu.DidUpdate)]
            assert [(n.path, n.reasons, n.body) for n in appeared] == [("/App/Extra", ("_extra",), ("Counter#4",))]
            assert (await done(c.get("/App")))["provides"]["observables"] == {
                "Counter": "Counter#4", "Login": "Login#3", "Session": "Session#1", "Theme": "Theme#2",
            }

            # The slots are kept apart: an @Observable object is no environment object.
            with pytest.raises(milieu.InvalidDeclaration) as wrong:
                await done(c.provide("/App/Shop", environment_objects=["counter"]))
            assert wrong.value.field == "environmentObjects"
            # Badge requires Shop's Counter (the /App one is further up, but Shop's is nearer: still in use).
            assert await done(c.provide("/App", withdraw=["Counter"])) == {"version": 7}
            with pytest.raises(milieu.InUse) as in_use:
                await done(c.provide("/App/Shop", withdraw=["Counter"]))
            assert (in_use.value.provided, list(in_use.value.dependents)) == ("Counter", ["/App/Shop/Badge"])

    run(scenario)


@pytest.mark.parametrize("driver", DRIVERS)
def test_environment_keys_are_registered_then_read(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, timeout=5.0) as c:
            tagline = {"tagline": {"type": "string", "default": "hello"}}
            assert await done(c.register(environment_keys=tagline)) == {"types": [], "environmentKeys": ["tagline"], "version": 2}
            assert await done(c.register(environment_keys=tagline)) == {"types": [], "environmentKeys": [], "version": 2}
            with pytest.raises(milieu.InvalidDeclaration):
                await done(c.register(environment_keys={"tagline": {"type": "string", "default": "bye"}}))
            with pytest.raises(milieu.InvalidParams):
                await done(c.register())
            both = await done(
                c.register(
                    [{"name": "Note", "style": "observable", "properties": {"text": {"type": "string"}}}],
                    environment_keys={"mood": {"type": "string", "default": "calm", "oneOf": ["calm", "busy"]}},
                )
            )
            assert both == {"types": ["Note"], "environmentKeys": ["mood"], "version": 3}

            # @Environment(\.tagline) var line, and @Environment(\.mood) var mood.
            banner = await done(
                c.mount(
                    parent="/App",
                    name="Banner",
                    environment={"line": {"key": "tagline"}, "mood": {"key": "mood"}},
                    body=["{line} ({mood})"],
                )
            )
            assert banner["body"] == ["hello (calm)"]
            watch = await done(c.watch(views="/App/Banner"))
            assert await done(c.provide("/App", environment={"tagline": "bye", "mood": "busy"})) == {"version": 5}
            assert await done(c.provide("/App", withdraw=["mood"])) == {"version": 6}
            updates = [(n.reasons, n.body) for n in await drain(c, watch) if isinstance(n, milieu.DidUpdate)]
            assert updates == [(("env.mood", "env.tagline"), ("bye (busy)",)), (("env.mood",), ("bye (calm)",))]
            assert (await done(c.get("/App/Banner")))["environment"] == {"line": "bye", "mood": "calm"}

            with pytest.raises(milieu.InvalidValue):
                await done(c.provide("/App", environment={"mood": "loud"}))
            with pytest.raises(milieu.InvalidDeclaration) as undeclared:
                await done(c.mount(parent="/App", name="Weather", environment=["forecast"]))
            assert undeclared.value.field == "environment.forecast"

    run(scenario)


@pytest.mark.parametrize("driver", DRIVERS)
def test_new_objects_in_state_and_inputs(driver: Type[AnyClient], daemon: Daemon) -> None:
    async def scenario() -> None:
        async with connected(driver, daemon.socket, timeout=5.0) as c:
            watch = await done(c.watch(lifecycle=True))
            await done(c.mount(parent="/App", name="Parent", state={"n": 0}, body=["{n}"]))
            child = await done(
                c.mount(
                    parent="/App/Parent",
                    name="Child",
                    state={"kept": ops.new("Counter", count=ops.parent("n"))},  # @State var kept = Counter(count: n)
                    inputs={"passed": ops.new("Counter")},  # let passed: Counter, given Counter() by the parent
                    body=["{kept.count} {passed.count}"],
                )
            )
            assert child["objects"] == {"passed": "Counter#4", "kept": "Counter#5"}
            kept, passed = "/App/Parent/Child.kept", "/App/Parent/Child.passed"
            assert lifecycle(await drain(c, watch)) == [
                ("object/didCreate", "Counter#4", passed, "construct"),
                ("object/didCreate", "Counter#5", kept, "state"),
            ]
            # The parent's evaluation makes both again: the input replaces the old one, the state's
            # initial value is thrown away (the identity keeps the first).
            await done(c.set("/App/Parent.n", 1))
            assert lifecycle(await drain(c, watch)) == [
                ("object/didCreate", "Counter#6", passed, "construct"),
                ("object/didCreate", "Counter#7", kept, "stateInitial"),
                ("object/didDestroy", "Counter#4", passed, "replaced"),
                ("object/didDestroy", "Counter#7", kept, "discarded"),
            ]
            assert await done(c.get(f"{kept}.count")) == 0

    run(scenario)

"""The connection state machine on its own, without sockets: lines in, decisions out.

Both clients drive :class:`milieu._core.Connection`; these tests drive it by hand, as a driver
would, so the paths a real daemon makes hard to time (a drop between a request and its
response, a failed re-watch) are exercised exactly.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple, Union

import pytest

import milieu
from milieu._core import (
    CLOSED, READY, RECONNECTING, Call, Connection, Done, Pending, Plan, ReconnectPolicy, WatchBase, WatchState,
    advance,
)

INFO = {
    "server": {"name": "milieud", "version": "0"}, "protocolVersion": "1", "capabilities": {},
    "instance": "a", "version": 1,
}


class FakeWatch(WatchBase):
    """Records what the state machine gives a watch."""

    def __init__(self, state: WatchState) -> None:
        super().__init__(state)
        self.items: List[Union[milieu.Notification, milieu.MilieuError]] = []
        self.error: milieu.MilieuError | None = None

    def _push(self, item: Union[milieu.Notification, milieu.MilieuError]) -> None:
        self.items.append(item)

    def _finish(self, error: milieu.MilieuError | None) -> None:
        self._finished, self.error = True, error


class FakePending(Pending):
    """Records the outcome of a request."""

    outcome: Tuple[Any, milieu.MilieuError | None] | None = None

    def complete(self, result: Any, error: milieu.MilieuError | None) -> None:
        self.outcome = (result, error)


def line(message: Dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


def make(policy: ReconnectPolicy | None = ReconnectPolicy()) -> Connection[FakeWatch]:
    return Connection(policy, FakeWatch, lambda: None)


def run(core: Connection[FakeWatch], plan: Plan[Any], *responses: Dict[str, Any]) -> Any:
    """Carries out ``plan``, answering its requests with ``responses`` (``result`` or ``error``), in order."""
    step = advance(plan)
    for response in responses:
        assert isinstance(step, Call), "the plan ended before its responses were used"
        pending = FakePending(step)
        core.start(pending)
        core.receive(line({"id": pending.id, **response}))
        assert pending.outcome is not None
        result, error = pending.outcome
        step = advance(plan, result, error)
    assert isinstance(step, Done), "the plan asked for more requests"
    return step.value


def connected(policy: ReconnectPolicy | None = ReconnectPolicy()) -> Connection[FakeWatch]:
    core = make(policy)
    core.begin_connect()
    core.attached()
    run(core, core.handshake(), {"result": INFO})
    core.established()
    assert core.state == READY
    return core


def watched(core: Connection[FakeWatch], watch_id: int = 1) -> FakeWatch:
    watch: FakeWatch = run(
        core, core.watch(WatchState(["login"], [], False), None, None), {"result": {"watch": watch_id, "version": 1}}
    )
    return watch


def test_a_lost_connection_fails_only_its_own_requests() -> None:
    core = connected()
    old = FakePending(Call("graph/get", {"path": "login.email"}))
    core.start(old)
    assert core.lost(core.generation) is True and core.state == RECONNECTING
    generation = core.attached()
    new = FakePending(Call("initialize", {}, internal=True))
    core.start(new)
    assert core.lost(generation - 1) is False, "an earlier connection's end changes nothing"
    assert old.outcome is not None and isinstance(old.outcome[1], milieu.ConnectionLost)
    assert new.outcome is None


def test_a_response_nobody_waits_for_is_dropped() -> None:
    core = connected()
    pending = FakePending(Call("graph/get", {"path": "login.email"}))
    core.start(pending)
    assert core.abandon(pending) is True
    core.receive(line({"id": pending.id, "result": "late"}))
    assert pending.outcome is None and core.abandon(pending) is False


@pytest.mark.parametrize("policy", [None, ReconnectPolicy()], ids=["no policy", "closing"])
def test_a_final_loss_ends_the_watches_each_with_its_own_error_and_lets_them_go(policy: ReconnectPolicy | None) -> None:
    core = connected(policy)
    first, second = watched(core, 1), watched(core, 2)
    if policy is not None:
        run(core, core.shutdown(None), {"result": {}})
    assert core.lost(core.generation) is False and core.state == CLOSED
    assert first._finished and second._finished
    if policy is None:
        assert isinstance(first.error, milieu.ConnectionLost) and isinstance(second.error, milieu.ConnectionLost)
        assert first.error is not second.error and first.error is not core.failure
    else:
        assert first.error is None and core.failure is None, "shut down on purpose"
    assert core._watches == [], "nothing is left to make again"


def test_a_watch_resumes_where_it_left_off() -> None:
    core = connected()
    watch = watched(core)
    core.receive(line({"method": "graph/didChange", "params": {"watch": 1, "version": 2, "changes": []}}))
    core.lost(core.generation)
    core.attached()
    plan = core.handshake()
    step = advance(plan)
    assert isinstance(step, Call) and step.method == "initialize"
    step = advance(plan, INFO)
    assert isinstance(step, Call) and step.params == {"paths": ["login"], "sinceVersion": 1}, "version 2 may be partial"
    pending = FakePending(step)
    core.start(pending)
    core.receive(line({"id": pending.id, "result": {"watch": 7, "version": 3}}))
    assert isinstance(advance(plan, {"watch": 7, "version": 3}), Done)
    core.receive(line({"method": "graph/didChange", "params": {"watch": 7, "version": 3, "changes": []}}))
    assert watch.id == 7 and [n.version for n in watch.items if isinstance(n, milieu.DidChange)] == [2, 3]


def test_a_compacted_history_makes_the_watch_afresh_with_a_resync() -> None:
    core = connected()
    watch = watched(core)
    core.lost(core.generation)
    core.attached()
    compacted = {"code": -32013, "message": "compacted", "data": {"kind": "Compacted", "oldest": 5}}
    run(core, core.handshake(), {"result": INFO}, {"error": compacted}, {"result": {"watch": 2, "version": 9}})
    resync = watch.items[-1]
    assert isinstance(resync, milieu.Resync) and (resync.reason, resync.version, resync.oldest) == ("compacted", 9, 5)
    assert not watch._finished and core._watches == [watch]


def test_a_watch_that_cannot_be_made_again_ends_and_the_handshake_goes_on() -> None:
    core = connected()
    gone, kept = watched(core, 1), watched(core, 2)
    core.lost(core.generation)
    core.attached()
    unknown = {"code": -32001, "message": "no such path", "data": {"kind": "UnknownPath", "path": "login"}}
    run(core, core.handshake(), {"result": INFO}, {"error": unknown}, {"result": {"watch": 3, "version": 1}})
    assert isinstance(gone.items[-1], milieu.Resync) and isinstance(gone.error, milieu.UnknownPath)
    assert core._watches == [kept] and kept.id == 3


def test_a_malformed_watch_result_is_an_internal_error() -> None:
    core = connected()
    with pytest.raises(milieu.InternalError, match="malformed result"):
        run(core, core.watch(WatchState(["login"], [], False), None, None), {"result": {"watch": 1}})


def test_unwatch_names_the_watch_by_its_id_on_the_connection_it_is_sent_on() -> None:
    core = connected()
    watch = watched(core, 3)
    plan = core.unwatch(watch, None)
    step = advance(plan)  # made before the drop: the request waits for the next connection
    assert isinstance(step, Call)
    core.lost(core.generation)
    core.attached()
    run(core, core.handshake(), {"result": INFO}, {"result": {"watch": 1, "version": 1}})
    core.established()
    pending = FakePending(step)
    sent = core.start(pending)
    assert sent is not None and json.loads(sent)["params"] == {"watch": 1}
    core.receive(line({"id": pending.id, "result": {}}))
    assert watch._finished and watch.error is None and core._watches == []


@pytest.mark.parametrize("policy", [None, ReconnectPolicy()], ids=["no policy", "reconnecting"])
def test_connection_dropped_is_the_reason_the_connection_was_lost(policy: ReconnectPolicy | None) -> None:
    core = connected(policy)
    pending = FakePending(Call("graph/get", {"path": "login.email"}))
    core.start(pending)
    message = "dropped: its unsent output passed the hard limit of 33554432 bytes"
    core.receive(line({"method": "connection/dropped", "params": {"reason": "slowConsumer", "message": message, "pendingBytes": 1}}))
    assert core.lost(core.generation) is (policy is not None)
    assert pending.outcome is not None and isinstance(pending.outcome[1], milieu.ConnectionLost)
    assert f"milieud said {message} (slowConsumer)" in str(pending.outcome[1])
    if policy is None:
        assert f"milieud said {message}" in str(core.failure)


def test_a_watch_answered_after_it_was_given_up_on_is_ended() -> None:
    core = connected()
    watch = FakePending(Call("watch", {"paths": ["login"]}))
    get = FakePending(Call("graph/get", {"path": "login.email"}))
    core.start(watch)
    core.start(get)
    assert core.abandon(watch) and core.abandon(get)
    core.receive(line({"id": get.id, "result": "late"}))
    assert core.take_outgoing() == [], "only a watch is ended"
    core.receive(line({"id": watch.id, "result": {"watch": 5, "version": 2}}))
    (unwatch,) = core.take_outgoing()
    sent = json.loads(unwatch)
    assert (sent["method"], sent["params"]) == ("unwatch", {"watch": 5})
    assert core.take_outgoing() == []
    core.receive(line({"id": sent["id"], "result": {}}))
    assert watch.outcome is None and get.outcome is None, "nobody waits for those answers"


def test_a_response_whose_id_is_not_a_number_is_ignored() -> None:
    core = connected()
    core.receive(line({"id": [1], "result": 1}))
    core.receive(line({"id": {"a": 1}, "error": {"code": -32600, "message": "m"}}))
    assert core.state == READY and core.take_outgoing() == []

"""The resume bookkeeping on its own: a connection that drops between two notifications of one
version (which a test cannot time against a real daemon) loses and repeats nothing.

The params are those the daemon sends for S2 (SPEC §10.7): version 4 has three notifications.
"""

from __future__ import annotations

from typing import Any, Dict, List

import milieu
from milieu._core import WatchState

CHANGE_4 = {"watch": 1, "version": 4, "changes": [{"path": "/App/StartView.selectedNum", "value": 11}]}
UPDATE_4 = {"watch": 1, "version": 4, "path": "/App/StartView", "reasons": ["_selectedNum"], "body": ["selected: 11"]}
CHILD_4 = {"watch": 1, "version": 4, "path": "/App/StartView/ContentView", "reasons": ["@self"], "body": ["num: 10"]}
CHANGE_5 = {"watch": 1, "version": 5, "changes": [{"path": "/App/StartView.selectedNum", "value": 12}]}


def renumbered(params: Dict[str, Any], watch: int) -> Dict[str, Any]:
    return {**params, "watch": watch}


def deliver(state: WatchState, notes: List[tuple[str, Dict[str, Any]]]) -> List[milieu.Notification]:
    out = []
    for method, params in notes:
        n = state.accept(method, params)
        if n is not None:
            out.append(n)
    return out


def test_a_drop_inside_a_version_resumes_below_it_and_drops_the_repeats() -> None:
    state = WatchState([], ["/App/StartView"], False)
    state.bound("a", 3)
    assert state.resume_point() == (3, [])
    got = deliver(state, [("graph/didChange", CHANGE_4), ("view/didUpdate", UPDATE_4)])
    assert [type(n) for n in got] == [milieu.DidChange, milieu.DidUpdate]

    since, repeated = state.resume_point()
    assert since == 3, "version 4 may be incomplete, so resume below it"
    state.resumed(repeated)
    replay = [
        ("graph/didChange", renumbered(CHANGE_4, 2)),
        ("view/didUpdate", renumbered(UPDATE_4, 2)),
        ("view/didUpdate", renumbered(CHILD_4, 2)),
        ("graph/didChange", renumbered(CHANGE_5, 2)),
    ]
    after = deliver(state, replay)
    assert [(type(n), n.version) for n in after] == [(milieu.DidUpdate, 4), (milieu.DidChange, 5)]
    assert isinstance(after[0], milieu.DidUpdate) and after[0].path == "/App/StartView/ContentView"
    assert state.last_version == 5


def test_a_replay_that_differs_is_delivered() -> None:
    state = WatchState(["login"], [], False)
    state.bound("a", 3)
    deliver(state, [("graph/didChange", CHANGE_4)])
    state.resumed(state.resume_point()[1])
    other = {"watch": 2, "version": 4, "changes": [{"path": "login.email", "value": "x"}]}
    assert len(deliver(state, [("graph/didChange", other)])) == 1


def test_a_replay_that_only_lost_what_a_restart_forgets_is_not_delivered_again() -> None:
    # A commit read back from the log after a restart keeps its changes but not its cause
    # (SPEC 9.19), and a replayed view's _printChanges line is its line as it is now (9.12):
    # the same notification, not a new one.
    state = WatchState([], ["/App"], False)
    state.bound("a", 3)
    cause = {"method": "graph/set", "connection": 2, "ops": [{"method": "graph/set", "path": "login.email"}]}
    counts = {"values": 1, "rendered": 0, "mounted": 0, "unmounted": 0, "objectsCreated": 0, "objectsDestroyed": 0, "diagnostics": 0}
    update = {"watch": 1, "version": 4, "path": "/App", "reasons": ["login.email"], "body": ["x"], "printChanges": "App: @dependencies changed."}
    deliver(state, [("graph/didCommit", {"watch": 1, "version": 4, "cause": cause, "counts": counts}), ("view/didUpdate", update)])
    state.resumed(state.resume_point()[1])
    replay = [
        ("graph/didCommit", {"watch": 2, "version": 4, "cause": None, "counts": counts}),
        ("view/didUpdate", {**update, "watch": 2, "printChanges": "App: @self changed."}),
        ("graph/didChange", renumbered(CHANGE_5, 2)),
    ]
    assert [n.version for n in deliver(state, replay)] == [5]


def test_unknown_methods_are_counted_but_not_delivered() -> None:
    state = WatchState(["login"], [], False)
    state.bound("a", 1)
    assert deliver(state, [("view/didSomethingNew", {"watch": 1, "version": 2})]) == []
    assert state.resume_point() == (1, [{"version": 2, "method": "view/didSomethingNew"}])

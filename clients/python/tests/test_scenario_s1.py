"""S1 (seed 000) replayed through the client: the exchanges of SPEC §14.1, read from SPEC.md.

Each ``-->`` request is made with the client's own method, its result must equal
the ``<--`` response, and the watch must yield exactly the ``<--`` notifications
that follow it, as typed objects whose ``raw`` params are the SPEC's.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Tuple

import pytest

import milieu

from conftest import SPEC

Step = Tuple[Any, List[Any], List[Tuple[str, Dict[str, Any]]]]


def s1_steps() -> List[Step]:
    """(request or batch, responses, notifications as (method, params)) for each ``-->`` line of §14.1."""
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("### 14.1") : text.index("### 14.2")]
    steps: List[Step] = []
    for line in section.splitlines():
        if line.startswith("--> "):
            steps.append((json.loads(line[4:]), [], []))
        elif line.startswith("<-- "):
            message = json.loads(line[4:])
            if isinstance(message, dict) and "method" in message:
                steps[-1][2].append((message["method"], message["params"]))
            else:
                steps[-1][1].extend(message if isinstance(message, list) else [message])
    return steps


def perform(c: milieu.Client, request: Dict[str, Any], watches: List[milieu.Watch]) -> Any:
    method, params = request["method"], request["params"]
    if method == "watch":
        watch = c.watch(params.get("paths"), params.get("views"), params.get("lifecycle", False))
        watches.append(watch)
        return {"watch": watch.id, "version": watch.last_version}
    if method == "view/mount":
        return c.mount(params)
    if method == "view/unmount":
        return c.unmount(params["path"])
    if method == "graph/set":
        return c.set(params["path"], params["value"])
    if method == "graph/get":
        return c.get(params["path"])
    if method == "graph/transaction":
        return c.transaction(params["ops"])
    raise AssertionError(f"S1 has no {method}")


def test_s1_through_the_client(client: milieu.Client) -> None:
    steps = s1_steps()
    assert len(steps) == 12, "SPEC §14.1 changed: update this test"
    watches: List[milieu.Watch] = []
    for request, responses, notifications in steps:
        batch = request if isinstance(request, list) else [request]
        results = [perform(client, r, watches) for r in batch]
        assert results == [r["result"] for r in responses], f"results of {request}"
        watch = watches[0]
        received = [watch.next(timeout=5) for _ in notifications]
        assert [(type(n).method, n.raw) for n in received] == notifications, f"notifications after {request}"
        client.initialize()  # answered after every notification of the versions so far
        with pytest.raises(milieu.Timeout):
            watch.next(timeout=0)
    # LoginView2 lost its email before the fix (a new LoginViewModel); with the fix both keep it.
    assert client.get("/App/ContainerView/LoginView1.loginVM.email") == "kim@example.com"
    assert client.get("/App/ContainerView/LoginView2.loginVM.email") == "kim@example.com"
    assert client.get("/App/ContainerView.loginVM")["type"] == "LoginViewModel"


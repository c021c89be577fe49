"""Socket path resolution (SPEC §1.1): the rules, and agreement with the daemon's own resolution."""

from __future__ import annotations

import os
from typing import Callable, Dict

import pytest

import milieu

from conftest import Daemon


def test_explicit_path_wins() -> None:
    assert milieu.socket_path("/x/y.sock", environ={"MILIEU_SOCKET": "/env.sock"}) == "/x/y.sock"


def test_milieu_socket_when_set_and_not_empty() -> None:
    env = {"MILIEU_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/7"}
    assert milieu.socket_path(environ=env) == "/env.sock"
    env["MILIEU_SOCKET"] = ""
    assert milieu.socket_path(environ=env) == "/run/user/7/milieu/milieu.sock"


def test_xdg_runtime_dir_only_when_absolute() -> None:
    assert milieu.socket_path(environ={"XDG_RUNTIME_DIR": "/run/user/7"}, uid=7) == "/run/user/7/milieu/milieu.sock"
    assert milieu.socket_path(environ={"XDG_RUNTIME_DIR": "run/user/7"}, uid=7) == "/tmp/milieu-7/milieu.sock"
    assert milieu.socket_path(environ={"XDG_RUNTIME_DIR": ""}, uid=7) == "/tmp/milieu-7/milieu.sock"


def test_fallback_uses_the_real_uid() -> None:
    assert milieu.socket_path(environ={}) == f"/tmp/milieu-{os.getuid()}/milieu.sock"


def _env(**values: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MILIEU_SOCKET", "XDG_RUNTIME_DIR")}
    env.update(values)
    return env


@pytest.mark.parametrize("variable", ["MILIEU_SOCKET", "XDG_RUNTIME_DIR"])
def test_client_and_daemon_resolve_the_same_default(
    variable: str, make_daemon: Callable[..., Daemon], monkeypatch: pytest.MonkeyPatch
) -> None:
    daemon = make_daemon(start=False)
    value = daemon.socket if variable == "MILIEU_SOCKET" else daemon.directory
    env = _env(**{variable: value})
    expected = milieu.socket_path(environ=env)
    daemon.env = env
    daemon.start(with_socket_option=False, expect_socket=expected)
    monkeypatch.delenv("MILIEU_SOCKET", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv(variable, value)
    with milieu.Client() as c:
        assert c.path == expected
        assert c.get("theme.accentColor") == "blue"

"""The README's snippets, run as a reader would paste them: against a fresh daemon, twice, and
each must exit on its own. A second run meets what the first left (an equal write notifies no
one), so a snippet that only works once fails here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List

from conftest import Daemon

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text()


def block(language: str, containing: str) -> str:
    """The README's fenced ``language`` block that contains ``containing``."""
    blocks: List[str] = re.findall(r"```" + language + r"\n(.*?)```", README, re.S)
    matching = [text for text in blocks if containing in text]
    assert len(matching) == 1, f"one {language} block with {containing!r}"
    return matching[0]


def readme_daemon(make_daemon: Callable[..., Daemon]) -> tuple[Daemon, Dict[str, str]]:
    """A daemon at the default socket of a runtime directory of its own, and the environment
    that makes every snippet find it as a reader's shell would."""
    daemon = make_daemon(start=False)
    daemon.socket = os.path.join(daemon.directory, "milieu", "milieu.sock")
    daemon.start()
    environment = {key: value for key, value in os.environ.items() if key != "MILIEU_SOCKET"}
    environment["XDG_RUNTIME_DIR"] = daemon.directory
    return daemon, environment


def run_twice(command: List[str], environment: Dict[str, str]) -> List[str]:
    outputs = []
    for _ in range(2):
        done = subprocess.run(command, env=environment, cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    return outputs


def test_the_tour_shows_the_update_and_the_missing_object_every_run(make_daemon: Callable[..., Daemon]) -> None:
    _, environment = readme_daemon(make_daemon)
    tour = block("sh", "python3 - \"$sock\"")
    for output in run_twice(["sh", "-c", tour], environment):
        assert "'view/didUpdate'" in output and "'Hello, kim'" in output
        assert "EnvironmentObjectMissing" in output


def test_the_python_snippet_prints_the_missing_type_every_run(make_daemon: Callable[..., Daemon]) -> None:
    _, environment = readme_daemon(make_daemon)
    snippet = block("python", "milieu.Client()")
    for output in run_twice([sys.executable, "-c", snippet], environment):
        assert output.startswith("Cart /App/Checkout")


def test_the_node_snippet_prints_a_change_and_exits_every_run(make_daemon: Callable[..., Daemon]) -> None:
    _, environment = readme_daemon(make_daemon)
    snippet = block("js", "from './clients/node/index.js'")
    for output in run_twice(["node", "--input-type=module", "-e", snippet], environment):
        assert output.startswith("graph/didChange")

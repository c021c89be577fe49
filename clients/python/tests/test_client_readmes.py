"""The client READMEs' snippets, run as a reader would paste them: each fenced ``python`` block
of clients/python/README.md and ``js`` block of clients/node/README.md is a whole program, run
twice against one fresh daemon at the default socket; each must exit on its own, and the second
run must print what the first did (versions and object ids aside): a snippet that works once,
or leaves the daemon other than it found it, fails here. A block marked ``fragment`` (```python
fragment) shows a pattern inside a larger program and is not run; ``sh`` blocks are the install
and test commands, which the test run itself carries out."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List

import pytest

from conftest import Daemon
from test_readme import readme_daemon

ROOT = Path(__file__).resolve().parents[3]


def blocks(readme: Path, language: str) -> List[str]:
    """The fenced blocks whose info string is exactly ``language``: the programs to run."""
    return re.findall(r"^```" + language + r"\n(.*?)^```", readme.read_text(), re.S | re.M)


def fragments(readme: Path, language: str) -> List[str]:
    return re.findall(r"^```" + language + r" fragment\n", readme.read_text(), re.M)


def same_but_numbers(text: str) -> str:
    """Output with the numbers that differ from run to run (versions, object ids) masked."""
    return re.sub(r"\d+", "N", text)


def run_twice(command: List[str], environment: Dict[str, str], cwd: Path) -> None:
    outputs = []
    for attempt in (1, 2):
        done = subprocess.run(command, env=environment, cwd=cwd, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"run {attempt}: {done.stderr}"
        assert done.stdout.strip(), f"run {attempt} printed nothing"
        outputs.append(done.stdout)
    assert same_but_numbers(outputs[1]) == same_but_numbers(outputs[0]), f"the second run differs:\n{outputs[0]}\n---\n{outputs[1]}"


PYTHON_README = ROOT / "clients" / "python" / "README.md"
NODE_README = ROOT / "clients" / "node" / "README.md"


def test_the_readmes_keep_their_fragments_few() -> None:
    assert len(blocks(PYTHON_README, "python")) >= 5 and len(fragments(PYTHON_README, "python")) <= 1
    assert len(blocks(NODE_README, "js")) >= 6 and len(fragments(NODE_README, "js")) <= 1


@pytest.mark.parametrize("index", range(len(blocks(PYTHON_README, "python"))))
def test_each_python_readme_block_runs_twice_alike(index: int, make_daemon: Callable[..., Daemon]) -> None:
    _, environment = readme_daemon(make_daemon)
    run_twice([sys.executable, "-c", blocks(PYTHON_README, "python")[index]], environment, ROOT)


@pytest.mark.parametrize("index", range(len(blocks(NODE_README, "js"))))
def test_each_node_readme_block_runs_twice_alike(index: int, make_daemon: Callable[..., Daemon]) -> None:
    _, environment = readme_daemon(make_daemon)
    # From the package's directory, `import ... from 'milieu'` finds the package itself.
    run_twice(["node", "--input-type=module", "-e", blocks(NODE_README, "js")[index]], environment, NODE_README.parent)

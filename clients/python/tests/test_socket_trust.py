"""SPEC §1.2's rule for trusting a socket path, held to ``protocol/socket-trust.json``: the cases
milieud's (Swift) and the Node client's implementations are held to as well (issue #26, item 14)."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

import pytest

from milieu._trust import Entry, Refusal, judge

from conftest import REPO

TABLE = json.loads((REPO / "protocol" / "socket-trust.json").read_text())


def test_the_table_is_read() -> None:
    assert len(TABLE["cases"]) >= 25


@pytest.mark.parametrize("case", TABLE["cases"], ids=[case["name"] for case in TABLE["cases"]])
def test_each_case_gets_its_verdict(case: Dict[str, Any]) -> None:
    files = {**TABLE["base"], **case["files"]}

    def entry(path: str) -> Optional[Entry]:
        found = files.get(path)
        if found is None:
            return None
        kind = found["type"] if found["type"] in ("directory", "symlink", "socket") else "other"
        return Entry(kind, TABLE["uids"][found["owner"]], int(found.get("mode", "0777"), 8))

    def target(path: str) -> Optional[str]:
        found = files.get(path)
        return None if found is None else found.get("target")

    verdict = judge(case["path"], case["purpose"], TABLE["me"], case.get("cwd", "/"), entry, target)
    expect = case["expect"]
    if expect["trusted"]:
        assert verdict == expect["resolved"]
    else:
        assert verdict == Refusal(expect["reason"], expect["at"], expect["message"])

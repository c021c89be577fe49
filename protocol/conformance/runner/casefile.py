"""Reading case files: line 1 a header, then one step per line (README.md, step.schema.json)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from jsonschema import Draft202012Validator

from .wire import parse_strict

CONFORMANCE_DIR = Path(__file__).resolve().parents[1]
CASE_DIR = CONFORMANCE_DIR / "cases"
STEP_SCHEMA = json.loads((CONFORMANCE_DIR / "step.schema.json").read_text())
STEP_VALIDATOR = Draft202012Validator(STEP_SCHEMA)
HEADER_VALIDATOR = Draft202012Validator(STEP_SCHEMA["$defs"]["header"])


class CaseFormatError(Exception):
    """A case file that does not follow the format."""


@dataclass
class Case:
    path: Path
    name: str
    description: str
    scene: str | None
    daemon_args: list | None
    steps: list = field(default_factory=list)  # (line number, step object)

    @property
    def needs_own_daemon(self):
        return self.scene is not None or self.daemon_args is not None

    @property
    def label(self):
        return str(self.path.relative_to(CASE_DIR))


def all_case_paths():
    return sorted(CASE_DIR.glob("*/*.jsonl"))


def _violations(validator, value):
    return [e.message for e in validator.iter_errors(value)]


def load(path):
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise CaseFormatError(f"{path}: empty file")
    parsed = []
    for number, line in enumerate(lines, start=1):
        try:
            parsed.append((number, parse_strict(line)))
        except ValueError as error:
            raise CaseFormatError(f"{path}:{number}: not one line of strict JSON ({error})") from None
    number, header = parsed[0]
    problems = _violations(HEADER_VALIDATOR, header)
    if problems:
        raise CaseFormatError(f"{path}:1: bad header: {'; '.join(problems)}")
    if header["case"] != path.stem:
        raise CaseFormatError(f"{path}:1: case {header['case']!r} is not the file's name {path.stem!r}")
    case = Case(path, header["case"], header["description"], header.get("scene"), header.get("daemonArgs"))
    for number, step in parsed[1:]:
        problems = _violations(STEP_VALIDATOR, step)
        if problems:
            raise CaseFormatError(f"{path}:{number}: bad step {line_text(step)}: {'; '.join(problems)}")
        case.steps.append((number, step))
    return case


def line_text(value, limit=400):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"

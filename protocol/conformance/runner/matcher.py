"""The pattern language of expect steps (README.md, "Patterns").

`match(pattern, message, captures)` compares a received JSON value with a pattern and
returns the captures the pattern made; it raises `Mismatch` when the value does not
match and `PatternError` when the pattern itself is malformed (a bug in the case).
Captures take effect only once the whole message matched, so a `$ref` always refers
to a capture of an earlier step, whatever the member order of the pattern.
"""

import json
import re

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_CAPTURE = re.compile(rf"\$capture:({_NAME})")
_REF = re.compile(rf"\$ref:({_NAME})(?:\+([0-9]+))?")
_TYPE_MATCHERS = {
    "$any": lambda v: True,
    "$null": lambda v: v is None,
    "$bool": lambda v: isinstance(v, bool),
    "$number": lambda v: is_number(v),
    "$int": lambda v: is_number(v) and float(v).is_integer(),
    "$string": lambda v: isinstance(v, str),
    "$object": lambda v: isinstance(v, dict),
    "$array": lambda v: isinstance(v, list),
}


class PatternError(Exception):
    """The pattern is malformed: the case is wrong, whatever the daemon sent."""


class Mismatch(Exception):
    """The value does not match; `where` is a JSON Pointer into the received message."""

    def __init__(self, where, reason):
        super().__init__(f"at {where or '/'}: {reason}")
        self.where = where
        self.reason = reason


def is_number(value):
    """JSON numbers; Python's booleans are ints but not JSON numbers."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def json_equal(a, b):
    """Equality of JSON values: numbers by value (1 equals 1.0), never true == 1."""
    if is_number(a) and is_number(b):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return a == b


def match(pattern, value, captures):
    """Match `value` against `pattern`; return the new captures (name -> value)."""
    made = {}
    _match(pattern, value, "", captures, made)
    return made


def _show(value):
    return json.dumps(value, ensure_ascii=False)


def _pointer(where, key):
    return f"{where}/{str(key).replace('~', '~0').replace('/', '~1')}"


def _match(pattern, value, where, captures, made):
    if isinstance(pattern, dict):
        _match_object(pattern, value, where, captures, made)
    elif isinstance(pattern, list):
        if not isinstance(value, list):
            raise Mismatch(where, f"expected an array, got {_show(value)}")
        if len(value) != len(pattern):
            raise Mismatch(where, f"expected {len(pattern)} elements, got {len(value)}")
        for index, (p, v) in enumerate(zip(pattern, value)):
            _match(p, v, _pointer(where, index), captures, made)
    elif isinstance(pattern, str) and pattern.startswith("$") and not pattern.startswith("$$"):
        _match_matcher(pattern, value, where, captures, made)
    else:
        literal = pattern[1:] if isinstance(pattern, str) and pattern.startswith("$$") else pattern
        if not json_equal(literal, value):
            raise Mismatch(where, f"expected {_show(literal)}, got {_show(value)}")


def _match_object(pattern, value, where, captures, made):
    partial = pattern.get("$partial", False)
    if partial is not False and partial is not True:
        raise PatternError(f'at {where or "/"}: "$partial" must be true or false')
    if not isinstance(value, dict):
        raise Mismatch(where, f"expected an object, got {_show(value)}")
    keys = [k for k in pattern if k != "$partial"]
    missing = [k for k in keys if k not in value]
    if missing:
        raise Mismatch(where, f"missing member(s) {', '.join(map(_show, missing))}")
    if not partial:
        extra = [k for k in value if k not in pattern]
        if extra:
            raise Mismatch(where, f"unexpected member(s) {', '.join(map(_show, extra))}")
    for key in keys:
        _match(pattern[key], value[key], _pointer(where, key), captures, made)


def _match_matcher(pattern, value, where, captures, made):
    check = _TYPE_MATCHERS.get(pattern)
    if check is not None:
        if not check(value):
            raise Mismatch(where, f"expected {pattern}, got {_show(value)}")
        return
    if pattern.startswith("$text:"):
        text = pattern[len("$text:"):]
        written = getattr(value, "text", None)
        if not is_number(value) or written != text:
            raise Mismatch(where, f"expected a number written {text}, got {written or _show(value)}")
        return
    if pattern.startswith("$contains:"):
        text = pattern[len("$contains:"):]
        if not isinstance(value, str) or text not in value:
            raise Mismatch(where, f"expected a string containing {_show(text)}, got {_show(value)}")
        return
    capture = _CAPTURE.fullmatch(pattern)
    if capture:
        name = capture.group(1)
        if name in made:
            raise PatternError(f"at {where or '/'}: {pattern} captures {name} twice in one pattern")
        made[name] = value
        return
    ref = _REF.fullmatch(pattern)
    if ref:
        _match_ref(ref.group(1), ref.group(2), value, where, captures)
        return
    raise PatternError(f"at {where or '/'}: unknown matcher {_show(pattern)} (write a literal $ as $$)")


def _match_ref(name, offset, value, where, captures):
    if name not in captures:
        raise PatternError(f"at {where or '/'}: $ref:{name} refers to nothing captured in an earlier step")
    expected = captures[name]
    if offset is not None:
        if not (is_number(expected) and float(expected).is_integer()):
            raise Mismatch(where, f"$ref:{name}+{offset} needs an integer capture, {name} is {_show(expected)}")
        expected = int(expected) + int(offset)
    if not json_equal(expected, value):
        raise Mismatch(where, f"expected {_show(expected)} ($ref:{name}{'+' + offset if offset else ''}), got {_show(value)}")

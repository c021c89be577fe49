"""Builders for view declarations and for the ops of ``graph/transaction``.

>>> from milieu import ops
>>> c.transaction([ops.set("login.email", "kim@example.com"), ops.call("login.login")])

The builders produce the wire form ``{"method": ..., "params": ...}``; the
clients' methods of the same names take the same arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Mapping, Sequence, TypedDict

if TYPE_CHECKING:
    from typing_extensions import Unpack


class Op(TypedDict):
    """One op of ``graph/transaction``."""

    method: str
    params: Dict[str, Any]


class ViewFields(TypedDict, total=False):
    """The fields of a view declaration (SPEC §6.1) as Python keyword arguments.

    Each maps to the wire name in camelCase (``state_objects`` →
    ``stateObjects``); values are the JSON forms of the SPEC, for example
    ``inputs={"num": {"$parent": "selectedNum"}}``.
    """

    parent: str
    name: str
    id: Any
    inputs: Mapping[str, Any]
    state: Mapping[str, Any]
    bindings: Mapping[str, Any]
    state_objects: Mapping[str, Any]
    observed_objects: Mapping[str, Any]
    environment_objects: Mapping[str, str]
    environment: Sequence[str]
    provide: Mapping[str, Any]
    body: Sequence[str]
    retain: bool


_WIRE_NAMES = {
    "state_objects": "stateObjects",
    "observed_objects": "observedObjects",
    "environment_objects": "environmentObjects",
}


def declaration(base: Mapping[str, Any] | None = None, **fields: Unpack[ViewFields]) -> Dict[str, Any]:
    """A view declaration: ``base`` (already in wire form) updated with ``fields``.

    >>> declaration(parent="/App", name="Banner", state_objects={"cart": {"type": "Cart"}})
    {'parent': '/App', 'name': 'Banner', 'stateObjects': {'cart': {'type': 'Cart'}}}
    """
    result: Dict[str, Any] = dict(base or {})
    for key, value in fields.items():
        result[_WIRE_NAMES.get(key, key)] = _plain(value)
    return result


def _plain(value: Any) -> Any:
    """Turns mappings and non-string sequences into dicts and lists for the JSON encoder."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def set(path: str, value: Any, if_version: int | None = None) -> Op:
    """``graph/set``: write ``value`` at ``path`` (only if the target is at ``if_version``)."""
    params: Dict[str, Any] = {"path": path, "value": _plain(value)}
    if if_version is not None:
        params["ifVersion"] = if_version
    return {"method": "graph/set", "params": params}


def call(path: str, *args: Any) -> Op:
    """``graph/call``: run the action at ``path`` with positional ``args``."""
    return {"method": "graph/call", "params": {"path": path, "args": [_plain(a) for a in args]}}


def mount(base: Mapping[str, Any] | None = None, **fields: Unpack[ViewFields]) -> Op:
    """``view/mount``: mount the view that ``base`` and ``fields`` declare (see :func:`declaration`)."""
    return {"method": "view/mount", "params": declaration(base, **fields)}


def unmount(path: str) -> Op:
    """``view/unmount``: unmount the view at ``path`` and its subtree."""
    return {"method": "view/unmount", "params": {"path": path}}


def provide(
    path: str,
    environment_objects: Sequence[str] | None = None,
    environment: Mapping[str, Any] | None = None,
    withdraw: Sequence[str] | None = None,
) -> Op:
    """``view/provide``: what the view at ``path`` provides to its subtree, or withdraws."""
    params: Dict[str, Any] = {"path": path}
    if environment_objects is not None:
        params["environmentObjects"] = list(environment_objects)
    if environment is not None:
        params["environment"] = _plain(environment)
    if withdraw is not None:
        params["withdraw"] = list(withdraw)
    return {"method": "view/provide", "params": params}

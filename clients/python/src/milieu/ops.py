"""Builders for view declarations, their expressions, and the ops of ``graph/transaction``.

>>> from milieu import ops
>>> c.transaction([ops.set("login.email", "kim@example.com"), ops.call("login.login")])
>>> c.mount(parent="/App", name="Counter", state={"counter": ops.new("Counter", count=3)}, body=["{counter.count}"])

The op builders produce the wire form ``{"method": ..., "params": ...}``; the
clients' methods of the same names take the same arguments. The expression
builders (:func:`parent`, :func:`input`, :func:`literal`, :func:`new`) produce
the values of SPEC §6.2, for ``inputs``, ``state``, ``id`` and ``init``;
:func:`parent` and :func:`constant` those of ``bindings``.
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
    ``inputs={"num": ops.parent("selectedNum")}``. ``environment`` is a list of
    keys (``["colorScheme"]``) or ``{var: {"key": key}}`` and, for
    ``@Environment(T.self)``, ``{var: {"type": T}}`` (``"optional": True`` for
    ``T?``); ``provide`` (the modifiers inside the view's body: its descendants
    see them, the view does not) and ``modifiers`` (those its parent applies where
    it places the view, ``Child().environmentObject(x)``: the view and its
    descendants see them, key paths relative to the parent) are each
    ``{"environmentObjects": [...], "observables": [...], "environment": {...}}``.
    ``bindings`` are ``{var: ops.parent(key_path)}`` — into a value too,
    ``ops.parent("user.name")`` for ``$user.name``, ``ops.parent("items.0")`` for
    ``$items[0]`` — or ``{var: ops.constant(value)}`` for ``.constant(v)``; an ``@Bindable``
    object is an input (``inputs={"vm": ops.parent("vm")}``).
    ``body`` is template lines and the view language's elements (SPEC §6.3:
    ``{"text": ...}``, ``{"view": {...}}``, ``{"if": ...}``, ``{"forEach": ...}``, controls,
    ``{"disabled": ...}``, ``{"transformEnvironment": ...}``);
    ``print_changes`` asks for the line ``Self._printChanges()`` prints (SPEC §6.6);
    ``equatable`` lists the inputs and bindings ``.equatable()``'s ``==`` compares (SPEC §6.1).
    ``state_types`` gives a ``@State`` its Swift type (``@State var name: String? = "kim"`` is
    ``state={"name": "kim"}, state_types={"name": "string?"}``; SPEC §5.2's type forms).
    """

    parent: str
    name: str
    id: Any
    inputs: Mapping[str, Any]
    state: Mapping[str, Any]
    state_types: Mapping[str, Any]
    bindings: Mapping[str, Any]
    state_objects: Mapping[str, Any]
    observed_objects: Mapping[str, Any]
    environment_objects: Mapping[str, str]
    environment: Sequence[str] | Mapping[str, Mapping[str, Any]]
    provide: Mapping[str, Any]
    modifiers: Mapping[str, Any]
    body: Sequence[Any]
    retain: bool
    print_changes: bool | Sequence[str]
    equatable: Sequence[str]


_WIRE_NAMES = {
    "state_types": "stateTypes",
    "state_objects": "stateObjects",
    "observed_objects": "observedObjects",
    "environment_objects": "environmentObjects",
    "print_changes": "printChanges",
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
    *,
    environment_objects: Sequence[str] | None = None,
    observables: Sequence[str] | None = None,
    environment: Mapping[str, Any] | None = None,
    withdraw: Sequence[str] | None = None,
) -> Op:
    """``view/provide``: what the view at ``path`` provides to its subtree, or withdraws.

    ``environment_objects`` are key paths of ``ObservableObject`` objects (``.environmentObject(x)``,
    read with ``@EnvironmentObject``), ``observables`` key paths of ``@Observable`` objects
    (``.environment(x)``, read with ``@Environment(T.self)``), ``environment`` values of declared
    environment keys (``.environment(\\.key, v)``); ``withdraw`` names provided types and keys.
    """
    params: Dict[str, Any] = {"path": path}
    if environment_objects is not None:
        params["environmentObjects"] = list(environment_objects)
    if observables is not None:
        params["observables"] = list(observables)
    if environment is not None:
        params["environment"] = _plain(environment)
    if withdraw is not None:
        params["withdraw"] = list(withdraw)
    return {"method": "view/provide", "params": params}


# ---- Expressions (SPEC §6.2)


def parent(key_path: str) -> Dict[str, Any]:
    """``{"$parent": key_path}``: the parent's variable, or a key path from it, as of its last evaluation."""
    return {"$parent": key_path}


def constant(value: Any) -> Dict[str, Any]:
    """``{"$constant": value}``: ``.constant(v)`` passed to a ``@Binding``; ``value`` is a literal or an expression.

    The binding reads the value; a write through it is ``Forbidden`` (reason ``constant``)::

        bindings={"on": ops.constant(True)}                 # Flag(on: .constant(true))
        bindings={"on": ops.constant(ops.parent("shown"))}  # Flag(on: .constant(shown))
    """
    return {"$constant": _plain(value)}


def input(name: str) -> Dict[str, Any]:
    """``{"$input": name}``: this view's input ``name``."""
    return {"$input": name}


def literal(value: Any) -> Dict[str, Any]:
    """``{"$literal": value}``: ``value`` as is, even when it looks like an expression."""
    return {"$literal": _plain(value)}


def closure(*steps: Mapping[str, Any], params: Sequence[str] = ()) -> Dict[str, Any]:
    """``{"$closure": {"params": params, "steps": steps}}``: a closure a parent passes to an input of a
    view written in its body (``Row(onTap: { taps += 1 })``); its steps run in the parent.

    >>> closure({"set": "picked", "to": {"get": "n"}}, params=["n"])
    {'$closure': {'params': ['n'], 'steps': [{'set': 'picked', 'to': {'get': 'n'}}]}}
    """
    spec: Dict[str, Any] = {"params": list(params)} if params else {}
    spec["steps"] = [_plain(step) for step in steps]
    return {"$closure": spec}


def new(type: str, /, **init: Any) -> Dict[str, Any]:
    """``{"$new": {"type": type, "init": init}}``: a new object of ``type``, in ``state`` or ``inputs``.

    In ``state`` it is ``@State var x = T(...)``, SwiftUI's way to own an ``@Observable`` object
    (made at every evaluation of the parent, the first one kept); in ``inputs`` a parent passing
    ``T(...)`` to a ``let`` (a new object at every evaluation). ``init`` values are literals,
    :func:`parent` or :func:`input`:

    >>> new("Counter", count=parent("start"))
    {'$new': {'type': 'Counter', 'init': {'count': {'$parent': 'start'}}}}
    """
    spec: Dict[str, Any] = {"type": type}
    if init:
        spec["init"] = _plain(init)
    return {"$new": spec}

"""Typed notifications (SPEC §10).

Each notification the daemon sends to a watch becomes one of these frozen
dataclasses. ``watch`` is the daemon's watch id on the connection that received
it (it changes when the client reconnects), ``version`` the transaction that
caused it, and ``raw`` the notification's ``params`` exactly as received, so
members added by later protocol versions are not lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, Mapping, Optional, Tuple, Union


@dataclass(frozen=True)
class Change:
    """One entry of ``graph/didChange``: a path and its new value.

    For a secure property ``redacted`` is True and ``value`` is None: the value
    never leaves the daemon.
    """

    path: str
    value: Any
    redacted: bool = False


@dataclass(frozen=True)
class DidChange:
    """``graph/didChange``: properties and ``@State`` values that changed."""

    method: ClassVar[str] = "graph/didChange"
    watch: int
    version: int
    changes: Tuple[Change, ...]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    def values(self) -> Dict[str, Any]:
        """The changes as ``{path: value}``, leaving out redacted ones."""
        return {c.path: c.value for c in self.changes if not c.redacted}


@dataclass(frozen=True)
class DidUpdate:
    """``view/didUpdate``: a watched view's body was evaluated again, and why; ``print_changes`` is
    the line ``Self._printChanges()`` prints, for a view that declares it (SPEC §6.6) or for every
    view of a watch made with ``print_changes=True``."""

    method: ClassVar[str] = "view/didUpdate"
    watch: int
    version: int
    path: str
    reasons: Tuple[str, ...]
    body: Tuple[str, ...]
    raw: Dict[str, Any] = field(repr=False, compare=False)
    print_changes: str | None = None


@dataclass(frozen=True)
class DidMount:
    """``view/didMount``: a view appeared (``reason``: ``mounted``, ``identity``, ``condition``,
    ``row`` or ``presented``); ``print_changes`` as :class:`DidUpdate`'s."""

    method: ClassVar[str] = "view/didMount"
    watch: int
    version: int
    path: str
    reason: str
    body: Tuple[str, ...]
    raw: Dict[str, Any] = field(repr=False, compare=False)
    print_changes: str | None = None


@dataclass(frozen=True)
class DidUnmount:
    """``view/didUnmount``: a view left (``unmounted``, ``identity``, ``connectionClosed``, ``parentUnmounted``)."""

    method: ClassVar[str] = "view/didUnmount"
    watch: int
    version: int
    path: str
    reason: str
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class ObjectCreated:
    """``object/didCreate``: an object was created (watches with ``lifecycle=True``).

    ``reason``: ``stateObject`` (a ``@StateObject``), ``state`` (a ``@State`` holding a ``$new``
    object), ``construct`` (an inline ``@ObservedObject`` or a ``$new`` input), ``stateInitial`` (an
    initial value made for an identity that has one already; destroyed at once, ``discarded``),
    ``identity`` (for a view that appeared because an id changed) or ``app`` (the scene's objects).
    A reason this library does not know is kept as it is.
    """

    method: ClassVar[str] = "object/didCreate"
    watch: int
    version: int
    object: str
    type: str
    owner: Optional[str]
    reason: str
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class ObjectDestroyed:
    """``object/didDestroy``: an object was destroyed.

    ``reason``: ``replaced`` (a ``construct``ed object or ``$new`` input replaced), ``discarded`` (a
    ``stateInitial`` object), ``ownerUnmounted``, ``identity`` (its owner's identity changed) or
    ``released`` (it had lost its owner, and the last reference went; ``owner`` is None).
    ``ended_targets``: this watch's key path targets (as given) that resolved to the object
    and cover nothing from now on; empty for news a lifecycle watch gets.
    """

    method: ClassVar[str] = "object/didDestroy"
    watch: int
    version: int
    object: str
    type: str
    owner: Optional[str]
    reason: str
    ended_targets: Tuple[str, ...]
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Diagnostic:
    """``diagnostic``: something legal but probably unintended, e.g. ``StateObjectInitIgnored``.

    Kinds this library does not know are delivered too; ``variable``,
    ``ignored`` and ``hint`` are None when a kind does not carry them.
    """

    method: ClassVar[str] = "diagnostic"
    watch: int
    version: int
    kind: str
    message: str
    path: Optional[str]
    variable: Optional[str]
    ignored: Optional[Dict[str, Any]]
    hint: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class DidCommit:
    """``graph/didCommit`` (watches with ``commits=True``): a version was committed, the last
    notification of its version.

    ``cause`` is what made it, as ``graph/explain`` gives it (``method``, ``connection``, ``pid``,
    ``client``, ``ops`` with the paths they named), or None when the daemon no longer knows;
    ``counts`` how many ``values``, ``rendered`` views, ``mounted``, ``unmounted``,
    ``objectsCreated``, ``objectsDestroyed`` and ``diagnostics`` it made.
    """

    method: ClassVar[str] = "graph/didCommit"
    watch: int
    version: int
    cause: Optional[Dict[str, Any]]
    counts: Dict[str, int]
    raw: Dict[str, Any] = field(repr=False, compare=False)


Notification = Union[DidChange, DidUpdate, DidMount, DidUnmount, ObjectCreated, ObjectDestroyed, Diagnostic, DidCommit]
"""Any typed notification."""


def _change(entry: Mapping[str, Any]) -> Change:
    return Change(str(entry.get("path", "")), entry.get("value"), bool(entry.get("redacted", False)))


def _strings(value: Any) -> Tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _did_change(p: Dict[str, Any]) -> Notification:
    changes = p.get("changes")
    entries = changes if isinstance(changes, list) else []
    return DidChange(p["watch"], p["version"], tuple(_change(c) for c in entries if isinstance(c, dict)), p)


def _did_update(p: Dict[str, Any]) -> Notification:
    printed = p.get("printChanges")
    return DidUpdate(
        p["watch"], p["version"], str(p.get("path")), _strings(p.get("reasons")), _strings(p.get("body")), p,
        printed if isinstance(printed, str) else None,
    )


def _did_mount(p: Dict[str, Any]) -> Notification:
    printed = p.get("printChanges")
    return DidMount(
        p["watch"], p["version"], str(p.get("path")), str(p.get("reason")), _strings(p.get("body")), p,
        printed if isinstance(printed, str) else None,
    )


def _did_unmount(p: Dict[str, Any]) -> Notification:
    return DidUnmount(p["watch"], p["version"], str(p.get("path")), str(p.get("reason")), p)


def _created(p: Dict[str, Any]) -> Notification:
    return ObjectCreated(p["watch"], p["version"], str(p.get("object")), str(p.get("type")), p.get("owner"), str(p.get("reason")), p)


def _destroyed(p: Dict[str, Any]) -> Notification:
    return ObjectDestroyed(
        p["watch"], p["version"], str(p.get("object")), str(p.get("type")), p.get("owner"), str(p.get("reason")),
        _strings(p.get("endedTargets")), p,
    )


def _diagnostic(p: Dict[str, Any]) -> Notification:
    ignored = p.get("ignored")
    return Diagnostic(
        p["watch"], p["version"], str(p.get("kind")), str(p.get("message", "")), p.get("path"),
        p.get("variable"), ignored if isinstance(ignored, dict) else None, p.get("hint"), p,
    )


def _did_commit(p: Dict[str, Any]) -> Notification:
    cause, counts = p.get("cause"), p.get("counts")
    return DidCommit(
        p["watch"], p["version"], cause if isinstance(cause, dict) else None, dict(counts) if isinstance(counts, dict) else {}, p
    )


_PARSERS: Dict[str, Callable[[Dict[str, Any]], Notification]] = {
    DidChange.method: _did_change,
    DidUpdate.method: _did_update,
    DidMount.method: _did_mount,
    DidUnmount.method: _did_unmount,
    ObjectCreated.method: _created,
    ObjectDestroyed.method: _destroyed,
    Diagnostic.method: _diagnostic,
    DidCommit.method: _did_commit,
}


def parse_notification(method: str, params: Dict[str, Any]) -> Notification | None:
    """The typed notification for ``method``, or None for a method this library does not know
    (clients must ignore those, SPEC §2.1). ``params`` must carry integer ``watch`` and ``version``."""
    parser = _PARSERS.get(method)
    return parser(params) if parser is not None else None

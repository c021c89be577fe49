"""The results of requests, as the daemon sends them (SPEC §9).

These are ``TypedDict``s: at run time each result is the plain ``dict`` decoded
from the response, so members that later protocol versions add are kept.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict, Union


class RestoreDrop(TypedDict):
    """One thing a restart could not bring back: ``kind`` (``type``, ``environmentKey``, ``view``
    or ``value``), ``name`` (the type's or key's name, the view's path, the value's key path) and why."""

    kind: str
    name: str
    reason: str


class RestoreReport(TypedDict):
    """What a daemon that keeps state brought back when it started, and the first 100 of what it
    dropped because it no longer fits (SPEC §9.1, §12.3)."""

    types: int
    views: int
    values: int
    dropped: List[RestoreDrop]
    droppedCount: int


class _Restore(TypedDict, total=False):
    restore: RestoreReport


class InitializeResult(_Restore):
    """``initialize``: the daemon, its capabilities, its ``instance`` and current ``version``, and
    ``restore`` when the daemon, as it started, dropped something it keeps."""

    server: Dict[str, Any]
    protocolVersion: str
    capabilities: Dict[str, Any]
    instance: str
    version: int


class VersionResult(TypedDict):
    """``graph/set``, ``view/unmount``, ``view/provide``: the committed (or current) version."""

    version: int


class CallResult(TypedDict):
    """``graph/call``: the action's return value and the version."""

    result: Any
    version: int


class TransactionResult(TypedDict):
    """``graph/transaction``: one result per op, and the transaction's version."""

    results: List[Any]
    version: int


class MountResult(TypedDict):
    """``view/mount``: the canonical path, rendered body, object variables and version."""

    path: str
    body: List[str]
    objects: Dict[str, str]
    version: int


class ObjectVariable(TypedDict):
    """An object variable of a view node: the object, its type, and the ``wrapper`` that holds it:
    ``stateObject``, ``observedObject``, ``environmentObject``, ``input``, ``state`` (a ``@State``
    holding an object) or ``environment`` (``@Environment(T.self)``)."""

    object: str
    type: str
    wrapper: str


class Provides(TypedDict):
    """What a view provides to its subtree, by slot: ``.environmentObject(x)`` objects and
    ``.environment(x)`` objects by type name (``{"Cart": "Cart#4"}``), ``.environment(\\.key, v)``
    values by key."""

    environmentObjects: Dict[str, str]
    observables: Dict[str, str]
    environment: Dict[str, Any]


class _ViewId(TypedDict, total=False):
    id: Union[str, int, bool]


class ViewSnapshot(_ViewId):
    """A view node without ``children``: ``graph/get`` of a view path. ``id`` is present for a view
    with an explicit identity. ``objects`` maps a variable to ``None`` for an optional
    ``@Environment(T.self)`` that no ancestor provides."""

    path: str
    name: str
    version: int
    evaluations: int
    lastEvaluated: int
    inputs: Dict[str, Any]
    state: Dict[str, Any]
    bindings: Dict[str, Dict[str, Any]]
    objects: Dict[str, Optional[ObjectVariable]]
    environment: Dict[str, Any]
    provides: Provides
    body: List[str]
    retained: bool


class _Subtree(TypedDict, total=False):
    children: List[ViewNode]
    childCount: int


class ViewNode(ViewSnapshot, _Subtree):
    """A view node of ``view/tree`` (SPEC §9.11): the view and its children, in mount order; at
    the depth limit ``childCount`` (how many children it has) instead of ``children``."""


class TreeResult(TypedDict):
    """``view/tree``: the view node at the root of the asked subtree, and the version (that of
    the last page, when the tree came in pages)."""

    root: ViewNode
    version: int


class _PageNodeCount(TypedDict, total=False):
    childCount: int


class PageNode(ViewSnapshot, _PageNodeCount):
    """A view in a page of ``view/tree``: a view node without ``children``, with ``parent`` (its
    parent's path; ``None`` for the view the walk started at)."""

    parent: Optional[str]


class _NextCursor(TypedDict, total=False):
    nextCursor: str


class TreePage(_NextCursor):
    """A page of ``view/tree`` (``limit`` or ``cursor`` given): views in pre-order, and
    ``nextCursor`` unless it is the last page."""

    nodes: List[PageNode]
    version: int


class _DependencyPlace(TypedDict, total=False):
    path: str
    object: str
    property: str
    view: str
    variable: str
    type: str
    key: str
    provider: Optional[str]


class ViewDependency(_DependencyPlace):
    """One thing a view's last evaluation read (SPEC §9.16), by ``kind``: ``property``
    (``path``, ``object``, ``property``), ``state`` (``path``, ``view``, ``variable``), ``object``
    (``object``, ``type``: a held ``ObservableObject``) or ``environment`` (``key``, ``provider``,
    ``None`` for the default); ``reasons`` as ``view/didUpdate`` would give them."""

    kind: str
    reasons: List[str]


class DependenciesResult(TypedDict):
    """``view/dependencies``: the view's path and what its last evaluation read, in order."""

    path: str
    dependencies: List[ViewDependency]
    version: int


class ViewReader(TypedDict):
    """A view a change would evaluate again, and the reasons it would give."""

    view: str
    reasons: List[str]


class ReadersResult(TypedDict):
    """``graph/readers``: the views a change of the key path would evaluate, parents first."""

    readers: List[ViewReader]
    version: int


class ProvidedObject(TypedDict):
    """An object in a view's environment and the nearest view that provides it."""

    type: str
    object: str
    provider: str


class EnvironmentEntry(TypedDict):
    """An environment key's value for a view, and who provides it (``None``: the default)."""

    key: str
    value: Any
    provider: Optional[str]


class EnvironmentResult(TypedDict):
    """``view/environment``: the objects in both environment slots, by type, and every
    environment key, by name, each with its provider (SPEC §9.18)."""

    path: str
    environmentObjects: List[ProvidedObject]
    observables: List[ProvidedObject]
    environment: List[EnvironmentEntry]
    version: int


class TypesResult(TypedDict):
    """``schema/types``: every model type (its actions ``{name, params, secureParams?}``, where
    ``secureParams`` names the parameters whose argument is a secret: keep a call that passes one
    out of logs and histories), and every environment key with its default
    (``{name, type, default, builtIn, oneOf?, min?, max?, pattern?}``)."""

    types: List[Dict[str, Any]]
    environmentKeys: List[Dict[str, Any]]


class RegisterResult(TypedDict):
    """``schema/register``: the type names registered, the environment keys newly declared (a key
    declared again the same way is not listed), and the version."""

    types: List[str]
    environmentKeys: List[str]
    version: int


class CommitCause(TypedDict, total=False):
    """What made a commit (``graph/explain``): the request's ``method``, its ``connection``, the
    peer's ``pid`` and ``client`` name, and what each operation named (``ops``: ``method``,
    ``path``; of a transaction the first 16, ``moreOps`` counting the rest); ``method`` is
    ``connection/closed`` for a close that unmounted views."""

    method: str
    connection: int
    pid: int
    client: str
    ops: List[Dict[str, str]]
    moreOps: int


class ExplainResult(TypedDict):
    """``graph/explain``: a commit's cause-and-effect graph. Each node has ``id`` and ``kind``
    (``cause``, ``attribute``, ``view``, ``effect``) and the members of its kind; each edge has
    ``from``, ``to``, ``kind`` (``wrote``, ``invalidated``, ``parent``, ``caused``) and, for the
    edges into a view, the ``reason`` it reports. ``cause`` is None when no longer known."""

    version: int
    cause: Optional[CommitCause]
    nodes: List[Dict[str, Any]]
    edges: List[Dict[str, Any]]


class _DaemonPlaces(TypedDict, total=False):
    socket: str
    dataDirectory: str
    restore: RestoreReport


class DaemonMemory(TypedDict):
    residentBytes: int
    bufferedOutputBytes: int
    bufferedInputBytes: int


class DaemonInfoResult(_DaemonPlaces):
    """``daemon/info``: the daemon's build, pid, uptime, socket and data directory (``socket`` is
    absent for an inherited socket, ``dataDirectory`` with ``--ephemeral``), its ``durability``
    (``always``, ``everysec``, ``no`` or ``ephemeral``), the current and oldest versions, what it
    serves and its memory, and (but with ``--ephemeral``) what its restore at start brought back
    and dropped (SPEC §9.20)."""

    server: Dict[str, Any]
    protocolVersion: str
    instance: str
    pid: int
    uptimeSeconds: int
    durability: str
    version: int
    oldestVersion: int
    connections: int
    watches: int
    views: int
    objects: int
    memory: DaemonMemory


class _ClientName(TypedDict, total=False):
    name: str


class DaemonClient(_ClientName):
    """One connection of ``daemon/clients``: ``self`` is the one that asked; ``views`` are those
    its close would unmount (SPEC §9.21)."""

    connection: int
    pid: int
    uid: int
    self: bool
    connectedSeconds: int
    watches: int
    views: int
    bufferedOutputBytes: int


class ResetResult(TypedDict):
    """``graph/reset``: the version it committed (the current one with ``dry_run``, or when there
    was nothing to undo), and what it did: the top views it ``unmounted``, the scene views it
    ``remounted``, those whose environment it ``provided`` again, and the key paths it ``written``
    back (SPEC §9.22)."""

    version: int
    unmounted: List[str]
    remounted: List[str]
    provided: List[str]
    written: List[str]


class DaemonClientsResult(TypedDict):
    """``daemon/clients``: every connection, in the order they connected (SPEC §9.21)."""

    clients: List[DaemonClient]


class _ControlValue(TypedDict, total=False):
    value: Any
    redacted: bool
    options: List[Any]
    range: List[int]


class Control(_ControlValue):
    """One control of ``view/controls``: ``kind`` (``button``, ``textField``, ``secureField``,
    ``toggle``, ``stepper``, ``picker`` or ``navigationLink``), its ``label``, whether it is
    ``disabled``, and for a bound one its ``value`` (``redacted`` for a secure field), a picker's
    ``options`` and a stepper's ``range`` (SPEC §9.23)."""

    kind: str
    label: str
    disabled: bool


class ControlsResult(TypedDict):
    """``view/controls``: the view's controls in the order its body shows them."""

    path: str
    controls: List[Control]
    version: int


class LoadResult(TypedDict):
    """What :meth:`Client.load` did: the types it registered, the views it mounted (``None`` for
    the version when there were none)."""

    types: List[str]
    views: List[str]
    version: int | None


"""The client's request methods, written once for both clients.

Each method is a plan (:data:`milieu._core.Plan`) that takes the :class:`~milieu._core.Connection`
first and the method's arguments after it. The sync client makes each one a blocking method
(``get = sync_method(methods.get)``), the asyncio client a coroutine method; both take its
name, docstring and signature from here (:func:`describe`), and type checkers its parameters
and result. Adding a method: its plan here, and one line in each client.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Sequence, TypeVar, cast

from . import ops
from ._core import Call, Connection, Plan, W, WatchState, initialize_params, names
from .results import (
    CallResult, ControlsResult, DaemonClientsResult, LoadResult, ResetResult, DaemonInfoResult, DependenciesResult, EnvironmentResult, ExplainResult, InitializeResult, MountResult, PageNode,
    ReadersResult, RegisterResult, TransactionResult, TreePage, TreeResult, TypesResult, VersionResult, ViewNode,
)

if TYPE_CHECKING:  # typing_extensions is needed by type checkers only, not at run time
    from typing_extensions import Unpack

Method = TypeVar("Method", bound=Callable[..., Any])


def describe(method: Method, plan: Callable[..., Plan[Any]], watch: str) -> Method:
    """Gives a client's ``method``, made from ``plan``, the plan's name, docstring and signature:
    ``self`` in place of the connection, the plan's result as the result, and ``watch`` (the
    name of the client's watch class) in place of ``W``."""
    functools.update_wrapper(method, plan)
    signature = inspect.signature(plan)
    _, *parameters = signature.parameters.values()

    def annotation(text: Any) -> Any:
        return re.sub(r"\bW\b", watch, text) if isinstance(text, str) else text

    result = str(signature.return_annotation).removeprefix("Plan[").removesuffix("]")
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[
            inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            *(p.replace(annotation=annotation(p.annotation)) for p in parameters),
        ],
        return_annotation=annotation(result),
    )
    return method


def _op(op: ops.Op, timeout: float | None) -> Call:
    """The request of a transaction op made alone."""
    return Call(op["method"], op["params"], timeout)


def request(
    core: Connection[Any], method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
) -> Plan[Any]:
    """Sends any request and returns its result (or raises its typed error)."""
    result: Any = yield Call(method, dict(params or {}), timeout)
    return result


def initialize(core: Connection[Any], *, timeout: float | None = None) -> Plan[InitializeResult]:
    """``initialize`` again (``connect`` sends it already): the daemon, its capabilities, instance, version."""
    result: InitializeResult = yield Call("initialize", initialize_params(), timeout)
    return result


def types(core: Connection[Any], *, timeout: float | None = None) -> Plan[TypesResult]:
    """``schema/types``: every model type."""
    result: TypesResult = yield Call("schema/types", {}, timeout)
    return result


def register(
    core: Connection[Any],
    types: Sequence[Mapping[str, Any]] = (),
    *,
    environment_keys: Mapping[str, Mapping[str, Any]] | None = None,
    replace: bool = False,
    timeout: float | None = None,
) -> Plan[RegisterResult]:
    """``schema/register``: declares model types and custom environment keys, all or nothing.

    ``environment_keys`` is ``{key: {"type": T, "default": v, ...}}``, each key's
    ``EnvironmentKey.defaultValue``; a view reads one with ``environment=["key"]``. With
    ``replace`` a type takes the place of a registered one of its name (a built-in too), unless
    objects of it are alive (SPEC §9.3).
    """
    params: Dict[str, Any] = {}
    if types or environment_keys is None:
        params["types"] = [ops._plain(t) for t in types]
    if environment_keys is not None:
        params["environmentKeys"] = ops._plain(environment_keys)
    if replace:
        params["replace"] = True
    result: RegisterResult = yield Call("schema/register", params, timeout)
    return result


def load(core: Connection[Any], scene: Mapping[str, Any], *, timeout: float | None = None) -> Plan[LoadResult]:
    """A scene — what :func:`milieu.translate` makes of SwiftUI source, or a scene file's JSON:
    its types registered in the place of any of the same name, then its views mounted, retained,
    in one transaction. Returns the types, the paths mounted and the version."""
    types = [ops._plain(t) for t in scene.get("types", [])]
    keys = scene.get("environmentKeys")
    registered: List[str] = []
    if types or keys:
        params: Dict[str, Any] = {"replace": True}
        if types:
            params["types"] = types
        if keys:
            params["environmentKeys"] = ops._plain(keys)
        answer: RegisterResult = yield Call("schema/register", params, timeout)
        registered = answer["types"]
    mounts = [ops.mount({**view, "retain": True}) for view in scene.get("views", [])]
    if not mounts:
        return {"types": registered, "views": [], "version": None}
    done: TransactionResult = yield Call("graph/transaction", {"ops": mounts}, timeout)
    return {"types": registered, "views": [r["path"] for r in done["results"]], "version": done["version"]}


def get(core: Connection[Any], path: str, *, timeout: float | None = None) -> Plan[Any]:
    """``graph/get``: a value, an object snapshot or a view snapshot."""
    result: Any = yield Call("graph/get", {"path": path}, timeout)
    return result


def set(
    core: Connection[Any], path: str, value: Any, if_version: int | None = None, *, timeout: float | None = None
) -> Plan[VersionResult]:
    """``graph/set``: writes ``value`` at ``path`` (only if its target is at ``if_version``)."""
    result: VersionResult = yield _op(ops.set(path, value, if_version), timeout)
    return result


def call(core: Connection[Any], path: str, *args: Any, timeout: float | None = None) -> Plan[CallResult]:
    """``graph/call``: runs the action at ``path`` with positional ``args``."""
    result: CallResult = yield _op(ops.call(path, *args), timeout)
    return result


def transaction(
    core: Connection[Any], operations: Sequence[ops.Op | Mapping[str, Any]], *, timeout: float | None = None
) -> Plan[TransactionResult]:
    """``graph/transaction``: the ops (see :mod:`milieu.ops`) all or nothing, as one version."""
    result: TransactionResult = yield Call("graph/transaction", {"ops": [dict(op) for op in operations]}, timeout)
    return result


def mount(
    core: Connection[Any],
    declaration: Mapping[str, Any] | None = None,
    *,
    timeout: float | None = None,
    **fields: Unpack[ops.ViewFields],
) -> Plan[MountResult]:
    """``view/mount``: a view declaration in wire form, or keyword fields (see :func:`milieu.ops.declaration`)."""
    result: MountResult = yield _op(ops.mount(declaration, **fields), timeout)
    return result


def unmount(core: Connection[Any], path: str, *, timeout: float | None = None) -> Plan[VersionResult]:
    """``view/unmount``: unmounts the view at ``path`` and its subtree."""
    result: VersionResult = yield _op(ops.unmount(path), timeout)
    return result


def provide(
    core: Connection[Any],
    path: str,
    *,
    environment_objects: Sequence[str] | None = None,
    observables: Sequence[str] | None = None,
    environment: Mapping[str, Any] | None = None,
    withdraw: Sequence[str] | None = None,
    timeout: float | None = None,
) -> Plan[VersionResult]:
    """``view/provide``: adds, replaces or withdraws what the view at ``path`` provides (see :func:`milieu.ops.provide`)."""
    operation = ops.provide(
        path, environment_objects=environment_objects, observables=observables, environment=environment, withdraw=withdraw
    )
    result: VersionResult = yield _op(operation, timeout)
    return result


def tree(
    core: Connection[Any],
    path: str | None = None,
    *,
    depth: int | None = None,
    page_size: int = 1000,
    timeout: float | None = None,
) -> Plan[TreeResult]:
    """``view/tree``: the views from ``path`` (default ``/App``), ``depth`` levels below it at most
    (a view at the limit has ``childCount``), fetched ``page_size`` views at a time by following
    each page's cursor and put together, so that a tree of any size arrives without one answer
    passing the daemon's output limit (SPEC §9.11). Each page is the tree as of its own version;
    ``version`` is the last page's. ``timeout`` is per page."""
    params: Dict[str, Any] = {"limit": page_size}
    if path is not None:
        params["path"] = path
    if depth is not None:
        params["depth"] = depth
    nodes: List[PageNode] = []
    while True:
        page: TreePage = yield Call("view/tree", params, timeout)
        nodes += page["nodes"]
        cursor = page.get("nextCursor")
        if cursor is None:
            return {"root": assemble_tree(nodes), "version": page["version"]}
        params = {"cursor": cursor, "limit": page_size}


def dependencies(core: Connection[Any], path: str, *, timeout: float | None = None) -> Plan[DependenciesResult]:
    """``view/dependencies``: what the last body evaluation of the view at ``path`` read, each
    with the reasons a change to it gives (SPEC §9.16)."""
    result: DependenciesResult = yield Call("view/dependencies", {"path": path}, timeout)
    return result


def readers(core: Connection[Any], path: str, *, timeout: float | None = None) -> Plan[ReadersResult]:
    """``graph/readers``: the views a change of the key path ``path`` would evaluate again, with
    their reasons, parents first (SPEC §9.17)."""
    result: ReadersResult = yield Call("graph/readers", {"path": path}, timeout)
    return result


def environment(core: Connection[Any], path: str, *, timeout: float | None = None) -> Plan[EnvironmentResult]:
    """``view/environment``: the environment objects, observables and values the view at
    ``path`` sees, each with the view that provides it (SPEC §9.18)."""
    result: EnvironmentResult = yield Call("view/environment", {"path": path}, timeout)
    return result


def assemble_tree(nodes: Sequence[PageNode]) -> ViewNode:
    """The tree that the nodes of a walk's pages make, in order: each view under its parent."""
    by_path: Dict[str, ViewNode] = {}
    root: ViewNode | None = None
    for page_node in nodes:
        node = cast(ViewNode, {key: value for key, value in page_node.items() if key != "parent"})
        if "childCount" not in node:
            node["children"] = []
        by_path[node["path"]] = node
        parent = page_node["parent"]
        if parent is None:
            root = root or node
        elif parent in by_path:
            by_path[parent].setdefault("children", []).append(node)
    if root is None:
        raise ValueError("view/tree sent no root")
    return root


def watch(
    core: Connection[W],
    paths: Sequence[str] | str | None = None,
    views: Sequence[str] | str | None = None,
    lifecycle: bool = False,
    *,
    commits: bool = False,
    print_changes: bool = False,
    since_version: int | None = None,
    timeout: float | None = None,
) -> Plan[W]:
    """``watch``: returns a watch (:class:`~milieu.Watch`, or :class:`~milieu.AsyncWatch` for the
    asyncio client) that yields the notifications for these targets.

    ``commits`` adds every commit with what made it (:class:`~milieu.DidCommit`, as ``milieu
    monitor`` shows them). ``print_changes`` gives every view notification the line
    ``Self._printChanges()`` would print, whether or not the view declares it (``print_changes``
    of :class:`~milieu.DidUpdate` and :class:`~milieu.DidMount`, as ``milieu --print-changes``
    shows them). A view path need not be mounted yet: ``watch.not_mounted`` lists
    those that are not, and the watch delivers for them once they are. With ``since_version``
    the daemon first replays what happened after that version.
    """
    return core.watch(WatchState(names(paths), names(views), lifecycle, commits, print_changes), since_version, timeout)


def unwatch(core: Connection[W], watch: W, *, timeout: float | None = None) -> Plan[None]:
    """``unwatch``: ends ``watch``; its iteration stops after the notifications already received."""
    return core.unwatch(watch, timeout)


def explain(core: Connection[Any], version: int, *, timeout: float | None = None) -> Plan[ExplainResult]:
    """``graph/explain``: the cause and effect of commit ``version``: what made it, the attributes
    it changed (old and new values), the views it evaluated and why, and what followed."""
    result: ExplainResult = yield Call("graph/explain", {"version": version}, timeout)
    return result


def reset(core: Connection[Any], *, dry_run: bool = False, timeout: float | None = None) -> Plan[ResetResult]:
    """``graph/reset``: the graph back to its scene's start, as one transaction: every view
    clients mounted goes (retained ones too), the scene's views, what they provide and their
    values as they began. With ``dry_run``, what it would do, and nothing done (SPEC §9.22)."""
    result: ResetResult = yield Call("graph/reset", {"dryRun": True} if dry_run else {}, timeout)
    return result


def controls(core: Connection[Any], path: str, *, timeout: float | None = None) -> Plan[ControlsResult]:
    """``view/controls``: the controls the view at ``path`` shows — buttons, fields, toggles,
    steppers, pickers, navigation links — with each label, whether it is disabled and what a bound
    one holds (a secure field's value is never sent) (SPEC §9.23)."""
    result: ControlsResult = yield Call("view/controls", {"path": path}, timeout)
    return result


def tap(core: Connection[Any], path: str, label: str, *, timeout: float | None = None) -> Plan[int]:
    """``view/tap``: presses the button labelled ``label`` in the view at ``path`` (its action is
    one transaction), or shows or hides a navigation link's destination; returns the version (SPEC §9.24)."""
    result: VersionResult = yield Call("view/tap", {"path": path, "label": label}, timeout)
    return result["version"]


def input(core: Connection[Any], path: str, label: str, value: Any, *, timeout: float | None = None) -> Plan[int]:
    """``view/input``: types ``value`` into the field, or sets the toggle, stepper or picker, labelled
    ``label`` in the view at ``path``, through its binding; returns the version (SPEC §9.25)."""
    result: VersionResult = yield Call("view/input", {"path": path, "label": label, "value": value}, timeout)
    return result["version"]


def daemon_info(core: Connection[Any], *, timeout: float | None = None) -> Plan[DaemonInfoResult]:
    """``daemon/info``: the daemon's build, uptime, socket, data directory and durability, and
    how many connections, watches, views and objects it serves, with its memory (SPEC §9.20)."""
    result: DaemonInfoResult = yield Call("daemon/info", {}, timeout)
    return result


def daemon_clients(core: Connection[Any], *, timeout: float | None = None) -> Plan[DaemonClientsResult]:
    """``daemon/clients``: every connection the daemon serves, with its pid, uid, name, watches,
    views and unsent output (SPEC §9.21)."""
    result: DaemonClientsResult = yield Call("daemon/clients", {}, timeout)
    return result


def discover(core: Connection[Any], *, timeout: float | None = None) -> Plan[Dict[str, Any]]:
    """``rpc.discover``: the OpenRPC document of the protocol."""
    result: Dict[str, Any] = yield Call("rpc.discover", {}, timeout)
    return result

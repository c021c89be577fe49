"""Typed errors.

Every error the daemon returns becomes a :class:`MilieuError` subclass chosen by
``error.data.kind`` (SPEC §3.2); the culprit fields of ``error.data`` are
attributes, and the whole of ``data`` stays available as ``.data``. An unknown
kind in Milieu's range ``-32099..-32000`` is a plain :class:`MilieuError`; the
standard JSON-RPC errors are :class:`ProtocolError` subclasses.

Errors that arise in the client itself (:class:`ConnectionLost`,
:class:`Timeout`, :class:`Resync`) have ``code == 0``.
"""

from __future__ import annotations

from typing import Any, Dict, Generic, Mapping, Optional, Sequence, Type, TypeVar, cast, overload

_T = TypeVar("_T")


class _Field(Generic[_T]):
    """A read-only attribute backed by ``error.data[name]``."""

    def __init__(self, name: str, default: _T) -> None:
        self.name = name
        self.default = default

    @overload
    def __get__(self, obj: None, owner: Any) -> _Field[_T]: ...

    @overload
    def __get__(self, obj: MilieuError, owner: Any) -> _T: ...

    def __get__(self, obj: MilieuError | None, owner: Any) -> _Field[_T] | _T:
        if obj is None:
            return self
        return cast(_T, obj.data.get(self.name, self.default))


class MilieuError(Exception):
    """An error response from the daemon, or a failure of the client.

    ``code`` is the JSON-RPC error code (0 for client-side errors), ``message``
    the human-readable sentence, ``data`` the ``error.data`` object and ``kind``
    its stable name. Branch on the class or on ``kind``, never on ``message``.
    """

    op = _Field[Optional[int]]("op", None)
    """In a ``graph/transaction``, the index of the op that failed."""

    def __init__(
        self, code: int, message: str, data: Mapping[str, Any] | None = None, kind: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data: Dict[str, Any] = dict(data or {})
        self.kind: str = kind or str(self.data.get("kind") or type(self).__name__)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r}, data={self.data!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled whole, whatever the subclass's __init__ takes: an error crosses to another
        # process (multiprocessing, ProcessPoolExecutor) as it was raised.
        return (_restore, (type(self), self.message, dict(self.__dict__)))


def _restore(cls: Type[MilieuError], message: str, state: Dict[str, Any]) -> MilieuError:
    """A pickled :class:`MilieuError` made again, without calling its ``__init__``."""
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    return error


# --- standard JSON-RPC errors ------------------------------------------------------------


class ProtocolError(MilieuError):
    """A standard JSON-RPC 2.0 error (codes -32700 and -32600..-32603)."""

    reason = _Field[Optional[str]]("reason", None)


class ParseError(ProtocolError):
    """-32700: the line was not strict JSON."""


class InvalidRequest(ProtocolError):
    """-32600: not a valid request object."""


class MethodNotFound(ProtocolError):
    """-32601: no such method."""

    method = _Field[Optional[str]]("method", None)
    suggestions = _Field[Sequence[str]]("suggestions", ())
    """The methods nearest the wrong one, nearest first ("did you mean", SPEC §3.2)."""


class InvalidParams(ProtocolError):
    """-32602: params missing, of the wrong shape, or with unknown members."""

    field = _Field[Optional[str]]("field", None)
    """A JSON Pointer into the request's params."""


class InternalError(ProtocolError):
    """-32603: a bug in the daemon; nothing was committed."""


# --- Milieu's own errors (SPEC §3.2) -----------------------------------------------------


class EnvironmentObjectMissing(MilieuError):
    """-32000: a view requires an environment object that no ancestor provides."""

    type = _Field[str]("type", "")
    view = _Field[str]("view", "")
    variable = _Field[Optional[str]]("variable", None)
    searched = _Field[Sequence[str]]("searched", ())
    hint = _Field[str]("hint", "")


class UnknownPath(MilieuError):
    """-32001: a path names nothing that exists."""

    path = _Field[Optional[str]]("path", None)
    resolved = _Field[Optional[str]]("resolved", None)
    suggestions = _Field[Sequence[str]]("suggestions", ())
    """The known names nearest the wrong one, nearest first ("did you mean", SPEC §3.2)."""


class UnknownType(MilieuError):
    """-32002: no model type of that name."""

    type = _Field[Optional[str]]("type", None)
    suggestions = _Field[Sequence[str]]("suggestions", ())
    """The known names nearest the wrong one, nearest first ("did you mean", SPEC §3.2)."""


class UnknownAction(MilieuError):
    """-32003: the object's type has no action of that name."""

    path = _Field[Optional[str]]("path", None)
    action = _Field[Optional[str]]("action", None)
    type = _Field[Optional[str]]("type", None)
    suggestions = _Field[Sequence[str]]("suggestions", ())
    """The known names nearest the wrong one, nearest first ("did you mean", SPEC §3.2)."""


class TypeMismatch(MilieuError):
    """-32004: a value does not have the type the target requires."""

    path = _Field[Optional[str]]("path", None)
    expected = _Field[Optional[str]]("expected", None)
    actual = _Field[Optional[str]]("actual", None)


class ReadOnly(MilieuError):
    """-32005: the path cannot be written."""

    path = _Field[Optional[str]]("path", None)
    reason = _Field[Optional[str]]("reason", None)


class VersionConflict(MilieuError):
    """-32006: ``ifVersion`` does not match the target's version."""

    path = _Field[Optional[str]]("path", None)
    expected = _Field[Optional[int]]("expected", None)
    actual = _Field[Optional[int]]("actual", None)


class DuplicateView(MilieuError):
    """-32007: a view with that path is already mounted."""

    path = _Field[Optional[str]]("path", None)


class InvalidDeclaration(MilieuError):
    """-32008: a view or type declaration is well-formed JSON but invalid."""

    field = _Field[Optional[str]]("field", None)
    reason = _Field[Optional[str]]("reason", None)
    view = _Field[Optional[str]]("view", None)


class InUse(MilieuError):
    """-32009: withdrawing something that mounted views still require."""

    provided = _Field[Optional[str]]("provided", None)
    view = _Field[Optional[str]]("view", None)
    dependents = _Field[Sequence[str]]("dependents", ())


class MessageTooLarge(MilieuError):
    """-32010: a line over the daemon's limit (the client checks before sending)."""

    limit = _Field[Optional[int]]("limit", None)


class Forbidden(MilieuError):
    """-32011: reading a secure value, a refused peer, or unmounting ``/App``."""

    reason = _Field[Optional[str]]("reason", None)
    path = _Field[Optional[str]]("path", None)


class InvalidValue(MilieuError):
    """-32012: a value fails a declared constraint."""

    path = _Field[Optional[str]]("path", None)
    constraint = _Field[Optional[str]]("constraint", None)
    value = _Field[Any]("value", None)
    redacted = _Field[bool]("redacted", False)


class Compacted(MilieuError):
    """-32013: ``watch`` with a ``sinceVersion`` older than the daemon's history."""

    oldest = _Field[Optional[int]]("oldest", None)


class LimitExceeded(MilieuError):
    """-32014: a configured limit would be exceeded."""

    limit = _Field[Optional[str]]("limit", None)
    max = _Field[Optional[int]]("max", None)


class ResultTooLarge(MilieuError):
    """-32015: the response would pass the connection's output hard limit, so it was not sent;
    the connection goes on. ``hint`` says how to ask for less (for a tree: ``tree()`` pages)."""

    method = _Field[Optional[str]]("method", None)
    size = _Field[Optional[int]]("size", None)
    limit = _Field[Optional[int]]("limit", None)
    hint = _Field[Optional[str]]("hint", None)


# --- client-side errors ------------------------------------------------------------------


class ConnectionLost(MilieuError, ConnectionError):
    """The connection failed or closed (and, if reconnecting is on, could not be restored).

    A request that was in flight when the connection dropped fails with this
    error: it may or may not have been executed by the daemon.
    """

    def __init__(self, message: str) -> None:
        MilieuError.__init__(self, 0, message, {"kind": "ConnectionLost"})


class Timeout(MilieuError, TimeoutError):
    """A call, or ``Watch.next(timeout=...)``, did not complete in time."""

    def __init__(self, message: str) -> None:
        MilieuError.__init__(self, 0, message, {"kind": "Timeout"})


class Resync(MilieuError):
    """A watch could not be resumed exactly: re-read the state you depend on.

    Raised once by a watch's iterator (or ``next()``) after a reconnect, in the
    order of the notifications. ``reason`` is ``"compacted"`` (the daemon's
    history no longer reached back; ``oldest`` says how far it does),
    ``"restarted"`` (``initialize`` named a new daemon instance: its history is
    gone, and its versions may have started again) or
    ``"failed"`` (the watch could not be made again: ``error`` says why, and the
    watch then ends with that error). When ``error`` is None the watch goes on
    and its notifications follow for versions after ``version``.
    """

    def __init__(
        self,
        reason: str,
        version: int | None,
        *,
        oldest: int | None = None,
        error: MilieuError | None = None,
    ) -> None:
        detail = f": {error.message}" if error is not None else ""
        MilieuError.__init__(
            self,
            0,
            f"watch must resynchronise ({reason}){detail}; read the state again",
            {"kind": "Resync", "reason": reason},
        )
        self.reason = reason
        self.version = version
        self.oldest = oldest
        self.error = error


_BY_KIND: Dict[str, Type[MilieuError]] = {
    cls.__name__: cls
    for cls in (
        ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError,
        EnvironmentObjectMissing, UnknownPath, UnknownType, UnknownAction, TypeMismatch,
        ReadOnly, VersionConflict, DuplicateView, InvalidDeclaration, InUse, MessageTooLarge,
        Forbidden, InvalidValue, Compacted, LimitExceeded, ResultTooLarge,
    )
}

_BY_CODE: Dict[int, Type[MilieuError]] = {
    -32700: ParseError, -32600: InvalidRequest, -32601: MethodNotFound,
    -32602: InvalidParams, -32603: InternalError,
    -32000: EnvironmentObjectMissing, -32001: UnknownPath, -32002: UnknownType,
    -32003: UnknownAction, -32004: TypeMismatch, -32005: ReadOnly, -32006: VersionConflict,
    -32007: DuplicateView, -32008: InvalidDeclaration, -32009: InUse, -32010: MessageTooLarge,
    -32011: Forbidden, -32012: InvalidValue, -32013: Compacted, -32014: LimitExceeded, -32015: ResultTooLarge,
}


def error_from_response(error: Any) -> MilieuError:
    """Builds the typed error for a JSON-RPC ``error`` member (by ``data.kind``, then code)."""
    if not isinstance(error, dict):
        return ProtocolError(-32603, f"malformed error object: {error!r}", {"kind": "InternalError"})
    code = error.get("code")
    code = code if isinstance(code, int) else 0
    message = str(error.get("message", ""))
    data = error.get("data")
    data = data if isinstance(data, dict) else {}
    kind = data.get("kind")
    cls = _BY_KIND.get(kind) if isinstance(kind, str) else None
    if cls is None:
        cls = _BY_CODE.get(code)
    if cls is None:
        cls = ProtocolError if -32768 <= code <= -32100 else MilieuError
    return cls(code, message, data, kind if isinstance(kind, str) else None)

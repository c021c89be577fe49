"""A client for ``milieud``, SwiftUI's data flow as a daemon (JSON-RPC 2.0 over a Unix socket).

>>> import milieu
>>> with milieu.Client() as c:
...     c.set("login.email", "kim@example.com")

:class:`Client` is synchronous and thread-safe; :class:`AsyncClient` has the
same methods as coroutines. Errors are :class:`MilieuError` subclasses named
after the protocol's error kinds; notifications are the dataclasses of
:mod:`milieu.notifications`; :mod:`milieu.ops` builds transaction ops.
"""

from . import ops
from ._core import ReconnectPolicy
from ._socket_path import socket_path
from ._translate import TranslationError, translate
from ._version import __version__
from .aio import AsyncClient, AsyncWatch
from .client import Client, Watch
from .errors import (
    Compacted, ConnectionLost, DuplicateView, EnvironmentObjectMissing, Forbidden, InternalError, InUse,
    InvalidDeclaration, InvalidParams, InvalidRequest, InvalidValue, LimitExceeded, MessageTooLarge, MethodNotFound,
    MilieuError, ParseError, ProtocolError, ReadOnly, Resync, ResultTooLarge, Timeout, TypeMismatch, UnknownAction,
    UnknownPath, UnknownType, VersionConflict,
)
from .notifications import (
    Change, Diagnostic, DidChange, DidCommit, DidMount, DidUnmount, DidUpdate, Notification, ObjectCreated,
    ObjectDestroyed,
)

__all__ = [
    "AsyncClient", "AsyncWatch", "Change", "Client", "Compacted", "ConnectionLost", "Diagnostic", "DidChange", "DidCommit",
    "DidMount", "DidUnmount", "DidUpdate", "DuplicateView", "EnvironmentObjectMissing", "Forbidden", "InUse",
    "InternalError", "InvalidDeclaration", "InvalidParams", "InvalidRequest", "InvalidValue", "LimitExceeded",
    "MessageTooLarge", "MethodNotFound", "MilieuError", "Notification", "ObjectCreated", "ObjectDestroyed",
    "ParseError", "ProtocolError", "ReadOnly", "ReconnectPolicy", "Resync", "ResultTooLarge", "Timeout", "TranslationError",
    "TypeMismatch",
    "UnknownAction", "UnknownPath", "UnknownType", "VersionConflict", "Watch", "__version__", "ops", "socket_path", "translate",
]

"""The results of requests, as the daemon sends them (SPEC §9).

These are ``TypedDict``s: at run time each result is the plain ``dict`` decoded
from the response, so members that later protocol versions add are kept.
"""

from __future__ import annotations

from typing import Any, Dict, List, TypedDict


class InitializeResult(TypedDict):
    """``initialize``: the daemon, its capabilities, its ``instance`` and current ``version``."""

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


class TreeResult(TypedDict):
    """``view/tree``: the view node at the root of the asked subtree, and the version."""

    root: Dict[str, Any]
    version: int


class TypesResult(TypedDict):
    """``schema/types``: every model type."""

    types: List[Dict[str, Any]]


class RegisterResult(TypedDict):
    """``schema/register``: the names registered and the version."""

    types: List[str]
    version: int

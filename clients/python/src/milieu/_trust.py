"""Whether a socket is our own daemon's: checked before a byte is sent (SPEC §1.2).

Another uid could squat a socket path (``/tmp/milieu-$UID`` above all) with a fake server and
be sent ``login.password``. The rule is SPEC §1.2's, the one milieud applies before it listens
and the Swift and Node clients before they connect (``protocol/socket-trust.json`` holds the
cases all of them are tested against): resolving the path one component at a time from ``/``
(symbolic links followed, at most 40), every directory on the way and every link followed
belongs to this user or root, no directory on the way is writable by group or others unless it
is sticky, and the socket file belongs to this user. Both drivers call :func:`check_path`
before connecting and :func:`check_peer` once connected; each raises :class:`ConnectionLost`
naming the path, what was found and the fix.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from dataclasses import dataclass
from typing import Callable, List, Optional, Union

from .errors import ConnectionLost

FIX = "use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)"
MAX_LINKS = 40


@dataclass(frozen=True)
class Entry:
    """What ``lstat`` says of one path: ``kind`` is ``directory``, ``symlink``, ``socket`` or ``other``."""

    kind: str
    uid: int
    mode: int


@dataclass(frozen=True)
class Refusal:
    """A path refused: the reason (``owner``, ``linkOwner``, ``writable``, ``notDirectory``,
    ``socketOwner``, ``notSocket``, ``loop``, ``missing``), the path that failed, and why."""

    reason: str
    path: str
    why: str


def judge(
    path: str, purpose: str, me: int, cwd: str,
    entry: Callable[[str], Optional[Entry]], target: Callable[[str], Optional[str]],
) -> Union[str, Refusal]:
    """SPEC §1.2's rule, without I/O: the path ``path`` resolves to when it is trusted for
    ``purpose`` (``listen``: the socket's directory; ``connect``: the directories and the socket
    file) by user ``me``, else the :class:`Refusal`. ``entry`` and ``target`` are lstat and readlink."""
    pending = _components(path if path.startswith("/") else cwd + "/" + path)
    socket_name = pending.pop() if purpose == "listen" and pending else None
    links = 0
    current = "/"
    root = entry(current)
    if root is None:
        return Refusal("missing", current, "/ does not exist")
    refusal = _judge_directory(root, current, me)
    if refusal is not None:
        return refusal
    reached_socket = False
    while pending:
        name = pending.pop(0)
        if name == "..":
            current = _parent(current)
            reached_socket = False
            continue
        candidate = "/" + name if current == "/" else current + "/" + name
        found = entry(candidate)
        if found is None:
            return Refusal("missing", candidate, f"{candidate} does not exist")
        if found.kind == "symlink":
            if found.uid not in (me, 0):
                return Refusal(
                    "linkOwner", candidate,
                    f"the symbolic link {candidate} belongs to uid {found.uid}, not to you (uid {me}) or root, "
                    "so that user could point it elsewhere",
                )
            links += 1
            if links > MAX_LINKS:
                return Refusal("loop", candidate, f"more than {MAX_LINKS} symbolic links lead to {candidate}")
            link_target = target(candidate)
            if link_target is None:
                return Refusal("missing", candidate, f"{candidate} does not exist")
            if link_target.startswith("/"):
                current = "/"
            pending = _components(link_target) + pending
            continue
        if not pending and purpose == "connect":
            if found.kind != "socket":
                return Refusal("notSocket", candidate, f"{candidate} is not a socket")
            if found.uid != me:
                return Refusal(
                    "socketOwner", candidate,
                    f"the socket {candidate} belongs to uid {found.uid}, not to you (uid {me}), "
                    "so another user's process serves it",
                )
            reached_socket = True
        else:
            if found.kind != "directory":
                return Refusal("notDirectory", candidate, f"{candidate} is not a directory")
            refusal = _judge_directory(found, candidate, me)
            if refusal is not None:
                return refusal
        current = candidate
    if socket_name is not None:
        return "/" + socket_name if current == "/" else current + "/" + socket_name
    if not reached_socket:
        return Refusal("notSocket", current, f"{current} is not a socket")
    return current


def _judge_directory(found: Entry, path: str, me: int) -> Optional[Refusal]:
    if found.uid not in (me, 0):
        return Refusal(
            "owner", path,
            f"{path} belongs to uid {found.uid}, not to you (uid {me}) or root, so that user could replace the socket",
        )
    if found.mode & 0o022 and not found.mode & stat.S_ISVTX:
        return Refusal(
            "writable", path,
            f"{path} has mode {found.mode & 0o7777:04o}: others may write to it and it is not sticky, "
            "so they could replace the socket",
        )
    return None


def _components(path: str) -> List[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def _parent(path: str) -> str:
    head = path.rsplit("/", 1)[0]
    return head or "/"


def _lstat(path: str) -> Optional[Entry]:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISDIR(found.st_mode):
        kind = "directory"
    elif stat.S_ISLNK(found.st_mode):
        kind = "symlink"
    elif stat.S_ISSOCK(found.st_mode):
        kind = "socket"
    else:
        kind = "other"
    return Entry(kind, found.st_uid, stat.S_IMODE(found.st_mode))


def _readlink(path: str) -> Optional[str]:
    try:
        return os.readlink(path)
    except OSError:
        return None


def check_path(path: str) -> None:
    """Refuses ``path`` unless SPEC §1.2's rule trusts it to connect to, as this process's euid.
    Nothing there is left to ``connect``, which then fails as not listening."""
    verdict = judge(path, "connect", os.geteuid(), os.getcwd(), _lstat, _readlink)
    if isinstance(verdict, Refusal) and verdict.reason != "missing":
        raise ConnectionLost(f"refusing {path}: {verdict.why}; {FIX}")


def check_peer(sock: socket.socket, path: str) -> None:
    """Refuses a connected ``sock`` whose peer runs as another uid (Linux ``SO_PEERCRED``; elsewhere nothing)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return
    size = struct.calcsize("3i")
    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, size))
    me = os.geteuid()
    if uid != me:
        raise ConnectionLost(f"refusing {path}: the process serving it runs as uid {uid}, not as you (uid {me}); {FIX}")

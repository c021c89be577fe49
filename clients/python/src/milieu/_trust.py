"""Whether a socket is our own daemon's: checked before a byte is sent (issue #15, item 12).

Another uid could squat a socket directory (``/tmp/milieu-$UID`` above all) with a fake
server and be sent ``login.password``. Both drivers call :func:`check_directory` before
connecting and :func:`check_peer` once connected; each raises :class:`ConnectionLost`
naming the path, what was found and the fix.
"""

from __future__ import annotations

import os
import socket
import stat
import struct

from .errors import ConnectionLost

_FIX = "remove it or set MILIEU_SOCKET"


def check_directory(path: str) -> None:
    """Refuses ``path`` unless its directory belongs to this process's euid and only it can write there."""
    directory = os.path.dirname(os.path.abspath(path))
    me = os.geteuid()
    try:
        link = os.lstat(directory)
        st = os.stat(directory)
    except OSError as e:
        raise ConnectionLost(f"cannot connect to {path}: cannot inspect its directory {directory}: {e}") from e
    for found, what in ((link, "its directory"), (st, "its directory (through a symlink)")):
        if found.st_uid != me:
            raise ConnectionLost(
                f"refusing {path}: {what} {directory} belongs to uid {found.st_uid}, "
                f"not to you (uid {me}); {_FIX}"
            )
    mode = stat.S_IMODE(st.st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ConnectionLost(
            f"refusing {path}: its directory {directory} has mode {mode:04o}, writable by others; "
            f"chmod go-w it, {_FIX}"
        )


def check_peer(sock: socket.socket, path: str) -> None:
    """Refuses a connected ``sock`` whose peer runs as another uid (Linux ``SO_PEERCRED``; elsewhere nothing)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return
    size = struct.calcsize("3i")
    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, size))
    me = os.geteuid()
    if uid != me:
        raise ConnectionLost(
            f"refusing {path}: the process serving it runs as uid {uid}, not as you (uid {me}); {_FIX}"
        )

"""Where the daemon's socket is: the one resolution both clients use (SPEC §1.1)."""

from __future__ import annotations

import os
from typing import Mapping


def socket_path(
    explicit: str | os.PathLike[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    uid: int | None = None,
) -> str:
    """Returns the socket path, first match wins.

    1. ``explicit``, when given;
    2. ``MILIEU_SOCKET``, when set and not empty;
    3. ``$XDG_RUNTIME_DIR/milieu/milieu.sock``, when ``XDG_RUNTIME_DIR`` is set,
       not empty and absolute;
    4. ``/tmp/milieu-$UID/milieu.sock`` with the process's real user id.

    ``environ`` and ``uid`` default to ``os.environ`` and ``os.getuid()``.
    """
    if explicit is not None:
        return os.fspath(explicit)
    env = os.environ if environ is None else environ
    override = env.get("MILIEU_SOCKET", "")
    if override:
        return override
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "milieu", "milieu.sock")
    return f"/tmp/milieu-{os.getuid() if uid is None else uid}/milieu.sock"

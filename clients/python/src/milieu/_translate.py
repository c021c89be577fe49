"""SwiftUI source as a scene: ``milieu translate`` (the REPL binary) reads it with Apple's
parser and prints the declarations; :meth:`milieu.Client.load` loads them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any, Dict, List, Sequence

from .errors import MilieuError


class TranslationError(MilieuError):
    """The source cannot be loaded: ``diagnostics`` are the compiler-style lines
    (``FILE:LINE:COL: error: …``) that say why."""

    def __init__(self, diagnostics: List[str]) -> None:
        super().__init__(0, "the Swift source cannot be loaded:\n" + "\n".join(diagnostics), {"diagnostics": diagnostics}, "Translation")
        self.diagnostics = diagnostics

    def __reduce__(self) -> Any:
        return (TranslationError, (self.diagnostics,))


def translate(*paths: str | os.PathLike[str], milieu: str | None = None, timeout: float = 30.0) -> Dict[str, Any]:
    """The scene that the Swift files make together — ``{"types": [...], "views": [...]}``, as
    ``milieu translate`` prints it; its warnings and notes in ``scene["diagnostics"]``. ``milieu``
    is the binary (default ``$MILIEU``, else ``milieu`` on the ``PATH``). Raises
    :class:`TranslationError` when the source has an error."""
    binary = milieu or os.environ.get("MILIEU") or shutil.which("milieu")
    if not binary:
        raise FileNotFoundError("milieu translate reads Swift source: put milieu on the PATH or set MILIEU")
    files: Sequence[str] = [os.fspath(path) for path in paths]
    run = subprocess.run([binary, "translate", *files], capture_output=True, text=True, timeout=timeout)
    diagnostics = [line for line in run.stderr.splitlines() if line]
    if run.returncode != 0:
        raise TranslationError(diagnostics)
    scene: Dict[str, Any] = json.loads(run.stdout)
    scene["diagnostics"] = diagnostics
    return scene

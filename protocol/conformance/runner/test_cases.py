"""Every case file under cases/ is one test (README.md)."""

import pytest

from runner import casefile
from runner.daemon import Daemon, find_binary
from runner.execute import CaseFailed, run_case

PATHS = casefile.all_case_paths()


@pytest.mark.parametrize("path", PATHS, ids=[str(p.relative_to(casefile.CASE_DIR)) for p in PATHS])
def test_case(path, server_socket, schemas):
    try:
        case = casefile.load(path)
    except casefile.CaseFormatError as error:
        pytest.fail(f"malformed case file: {error}", pytrace=False)
    if server_socket is not None:
        if case.needs_own_daemon:
            pytest.skip("needs a daemon of its own (scene or daemonArgs), not the one at --socket")
        _run(case, server_socket, schemas)
        return
    binary = find_binary()
    if binary is None:
        pytest.fail("no milieud: set MILIEUD to the daemon binary, or pass --socket PATH", pytrace=False)
    try:
        daemon = Daemon(binary, case.scene, case.daemon_args or [])
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
    try:
        _run(case, daemon.socket_path, schemas, daemon)
    finally:
        daemon.stop()
        daemon.cleanup()


def _run(case, socket_path, schemas, daemon=None):
    try:
        run_case(case, socket_path, schemas, daemon)
        return
    except CaseFailed as failure:
        message = str(failure)
    pytest.fail(message, pytrace=False)  # the message says it all

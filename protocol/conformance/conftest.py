"""pytest options of the conformance suite: `--socket PATH` runs against a running server."""

import pytest

from runner.schemas import Schemas


def pytest_addoption(parser):
    parser.addoption(
        "--socket",
        metavar="PATH",
        default=None,
        help="run the cases against the milieud already listening on PATH instead of a fresh "
        "daemon per case ($MILIEUD); cases that need a scene or daemon arguments are skipped",
    )


@pytest.fixture(scope="session")
def server_socket(request):
    return request.config.getoption("--socket")


@pytest.fixture(scope="session")
def schemas():
    return Schemas()

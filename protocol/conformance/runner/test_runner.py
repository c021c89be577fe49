"""Self-test of the runner against a scripted stand-in for milieud: the checks must catch
what is wrong, and failure messages must name the case, the step, the pattern and the message."""

import json
import os
import socket
import tempfile
import threading

import pytest

from runner import execute
from runner.casefile import CASE_DIR, Case
from runner.execute import CaseFailed, run_case
from runner.schemas import Schemas

LOGIN = {"name": "Login", "style": "observable", "builtIn": True, "actions": [], "properties": [
    {"name": "email", "type": "string", "computed": False, "secure": False, "default": ""},
    {"name": "password", "type": "string", "computed": False, "secure": True}]}


class FakeDaemon:
    """Answers each line it reads with `script(request)`: a list of JSON values (or raw str lines),
    or None to close the connection. `schema/types` gets one Login type."""

    def __init__(self, script):
        self.script = script
        self.dir = tempfile.mkdtemp(prefix="milieu-fake-")
        self.path = os.path.join(self.dir, "fake.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection):
        with connection, connection.makefile("rb") as lines:
            for line in lines:
                request = json.loads(line)
                if request.get("method") == "schema/types":
                    answers = [{"jsonrpc": "2.0", "id": request["id"], "result": {"types": [LOGIN]}}]
                else:
                    answers = self.script(request)
                if answers is None:
                    return
                connection.sendall(b"".join((a if isinstance(a, str) else json.dumps(a)).encode() + b"\n" for a in answers))

    def close(self):
        self.listener.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


@pytest.fixture
def daemon(request):
    fake = FakeDaemon(request.param)
    yield fake
    fake.close()


def script(function):
    return pytest.mark.parametrize("daemon", [function], indirect=True)


def result(value):
    return lambda request: [{"jsonrpc": "2.0", "id": request.get("id"), "result": value}]


def run(daemon, *steps):
    case = Case(CASE_DIR / "selftest" / "demo.jsonl", "demo", "a self-test", None, None, [(n + 2, s) for n, s in enumerate(steps)])
    run_case(case, daemon.path, Schemas())


def failure(daemon, *steps):
    with pytest.raises(CaseFailed) as caught:
        run(daemon, *steps)
    return str(caught.value)


GET = {"send": {"jsonrpc": "2.0", "id": 1, "method": "graph/get", "params": {"path": "theme.accentColor"}}}


@script(result("blue"))
def test_a_matching_exchange_passes(daemon):
    run(daemon, GET, {"expect": {"jsonrpc": "2.0", "id": 1, "result": "blue"}})


@script(result("blue"))
def test_a_mismatch_names_the_case_the_step_the_pattern_and_the_message(daemon):
    text = failure(daemon, GET, {"expect": {"jsonrpc": "2.0", "id": 1, "result": "red"}})
    assert "case selftest/demo.jsonl, step 2 (line 3)" in text
    assert 'pattern:  {"jsonrpc":"2.0","id":1,"result":"red"}' in text
    assert 'received: {"jsonrpc": "2.0", "id": 1, "result": "blue"}' in text
    assert 'at /result: expected "red", got "blue"' in text


@script(result({"version": "two"}))
def test_a_response_that_violates_its_schema_fails(daemon):
    text = failure(daemon, {"send": {"jsonrpc": "2.0", "id": 1, "method": "graph/set", "params": {"path": "a.b", "value": 1}}},
                   {"expect": {"jsonrpc": "2.0", "id": 1, "result": "$any"}})
    assert "graph_set.response.schema.json: at /result/version" in text


@script(result("x"))
def test_a_result_for_a_request_that_violates_its_schema_fails(daemon):
    text = failure(daemon, {"send": {"jsonrpc": "2.0", "id": 1, "method": "graph/get", "params": {"path": "a", "depth": 2}}},
                   {"expect": {"jsonrpc": "2.0", "id": 1, "result": "x"}})
    assert "violates its schema" in text and "'depth' was unexpected" in text


@script(lambda request: [{"jsonrpc": "2.0", "id": 99, "result": "x"}])
def test_tinyrpc_catches_a_reply_to_no_pending_request(daemon):
    text = failure(daemon, GET, {"expect": {"jsonrpc": "2.0", "id": "$any", "result": "x"}})
    assert "tinyrpc: the reply's id answers no request" in text


@script(lambda request: [{"jsonrpc": "2.0", "id": 1, "error": {"code": -32700, "message": "bad", "data": {"kind": "ParseError"}}}])
def test_tinyrpc_catches_a_parse_error_with_an_id(daemon):
    text = failure(daemon, GET, {"expect": {"jsonrpc": "2.0", "id": 1, "error": "$object"}})
    assert "must have id null" in text


@script(result({"object": "Login#3", "type": "Login", "version": 1, "owner": None, "values": {"email": "", "password": "x"}, "redacted": ["password"]}))
def test_a_secure_value_in_a_snapshot_fails(daemon):
    text = failure(daemon, {"send": {"jsonrpc": "2.0", "id": 1, "method": "graph/get", "params": {"path": "login"}}},
                   {"expect": {"jsonrpc": "2.0", "id": 1, "result": "$object"}})
    assert "shows secure property password" in text


@script(lambda request: [{"jsonrpc": "2.0", "id": request.get("id"), "result": {"version": 2}},
                         {"jsonrpc": "2.0", "method": "graph/didChange", "params": {"watch": 1, "version": 2, "changes": [{"path": "login.email", "value": "pw: hunter22"}]}}])
def test_a_secret_written_to_a_secure_property_must_never_come_back(daemon):
    text = failure(daemon, {"send": {"jsonrpc": "2.0", "id": 1, "method": "graph/set", "params": {"path": "login.password", "value": "hunter22"}}},
                   {"expect": {"jsonrpc": "2.0", "id": 1, "result": {"version": 2}}}, {"expect": "$object"})
    assert "a secret written to a secure property appears" in text


@script(result("blue"))
def test_expect_nothing_fails_when_a_message_arrives(daemon):
    text = failure(daemon, GET, {"expectNothing": 300})
    assert "a message arrived (expected nothing for 300 ms)" in text


@script(lambda request: result("a")(request) + result("b")(request))
def test_a_message_no_step_expected_fails_the_case(daemon):
    text = failure(daemon, GET, {"expect": {"jsonrpc": "2.0", "id": 1, "result": "a"}}, {"expectNothing": 100})
    assert "a message arrived" in text


@script(lambda request: result("a")(request) + ["[1]"])
def test_a_message_left_unread_at_the_end_fails_the_case(daemon):
    text = failure(daemon, GET, {"expect": {"jsonrpc": "2.0", "id": 1, "result": "a"}}, {"open": "b"}, {"close": "b"})
    assert "received a message that no step expected" in text


@script(lambda request: ["{not json"])
def test_a_line_that_is_not_json_fails(daemon):
    text = failure(daemon, GET, {"expect": "$any"})
    assert "not strict JSON" in text


@script(lambda request: None)
def test_expect_closed_passes_when_the_daemon_closes(daemon):
    run(daemon, GET, {"expectClosed": True}, {"open": "a"}, GET, {"expectClosed": True})


@script(lambda request: [])
def test_waiting_ends_with_a_timeout(daemon, monkeypatch):
    monkeypatch.setattr(execute, "EXPECT_TIMEOUT", 0.2)
    assert "no message within 0.2 s" in failure(daemon, GET, {"expect": "$any"})
    assert "still open after 0.2 s" in failure(daemon, GET, {"expectClosed": True})


@script(result("blue"))
def test_steps_on_unknown_connections_and_bad_patterns_are_case_errors(daemon):
    assert "case error: connection 'b' is not open" in failure(daemon, {"send": 1, "conn": "b"})
    assert "case error: bad pattern" in failure(daemon, GET, {"expect": {"jsonrpc": "2.0", "id": 1, "result": "$blue"}})

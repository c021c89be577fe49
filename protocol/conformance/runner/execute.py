"""Running one case against a daemon's socket (README.md, "Running a case")."""

import json
import re

from .casefile import line_text
from .checks import WireChecks
from .matcher import Mismatch, PatternError, match
from .redaction import Redaction
from .wire import EOF, Connection, WireError

EXPECT_TIMEOUT = 5.0
TRANSCRIPT_LINES = 16


class CaseFailed(AssertionError):
    """The daemon did not do what the case expects (or the case is malformed)."""


def _compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _Step:
    def __init__(self, number, line, step):
        self.number, self.line, self.step = number, line, step
        self.conn = step.get("conn", "a")


class CaseRun:
    def __init__(self, case, socket_path, schemas, daemon=None):
        self.case, self.socket_path, self.schemas, self.daemon = case, socket_path, schemas, daemon
        self.redaction = Redaction()
        self.connections = {}  # name -> (Connection, WireChecks)
        self.captures = {}
        self.transcript = []

    # -- reporting ---------------------------------------------------------------------
    def fail(self, step, what, **details):
        lines = [f"case {self.case.label}, step {step.number} (line {step.line}): {what}" if step else f"case {self.case.label}: {what}"]
        if step and "pattern" not in details:
            lines.append(f"  step:     {line_text(step.step, 2000)}")
        for key, value in details.items():
            lines.append(f"  {key + ':':9} {value}")
        if self.transcript:
            lines.append(f"  transcript (last {min(len(self.transcript), TRANSCRIPT_LINES)} lines; --> sent, <-- received):")
            lines += [f"    {entry}" for entry in self.transcript[-TRANSCRIPT_LINES:]]
        crash = self.daemon.crashed() if self.daemon else None
        if crash:
            lines.append("  " + crash)
        raise CaseFailed("\n".join(lines)) from None

    def _log(self, conn, arrow, text):
        text = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)
        text = text if len(text) <= 300 else text[:300] + f"… ({len(text)} characters)"
        self.transcript.append(f"{conn} {arrow} {text}")

    # -- connections -------------------------------------------------------------------
    def _open(self, name, step=None):
        if name in self.connections:
            self.fail(step, f"case error: connection {name!r} is already open")
        try:
            connection = Connection(self.socket_path, EXPECT_TIMEOUT)
        except OSError as error:
            self.fail(step, f"cannot connect to {self.socket_path}: {error}")
        self.connections[name] = (connection, WireChecks(self.schemas, self.redaction))

    def _connection(self, step):
        if step.conn not in self.connections:
            self.fail(step, f"case error: connection {step.conn!r} is not open")
        return self.connections[step.conn]

    def _learn_secure_properties(self):
        """Ask schema/types on a connection of the runner's own (redaction.py)."""
        connection = Connection(self.socket_path, EXPECT_TIMEOUT)
        try:
            connection.send(b'{"jsonrpc":"2.0","id":"conformance-types","method":"schema/types","params":{}}\n')
            received = connection.next_message(EXPECT_TIMEOUT)
            result = received[1].get("result") if isinstance(received, tuple) and isinstance(received[1], dict) else None
            if not isinstance(result, dict) or not isinstance(result.get("types"), list):
                self.fail(None, f"the runner's own schema/types request got {received!r}")
            self.redaction.learn_types(result["types"])
        finally:
            connection.close_and_drain(EXPECT_TIMEOUT)

    # -- steps -------------------------------------------------------------------------
    def run(self):
        self._learn_secure_properties()
        self._open("a")
        for index, (line, step) in enumerate(self.case.steps, start=1):
            self._run_step(_Step(index, line, step))
        for name in list(self.connections):
            self._finish(name, None)
        crash = self.daemon.crashed() if self.daemon else None
        if crash:
            self.fail(None, crash)

    def close_all(self):
        for connection, _ in self.connections.values():
            connection.abort()
        self.connections.clear()

    def _run_step(self, step):
        kind = next(k for k in ("send", "sendRaw", "sendHex", "expect", "expectNothing", "expectClosed", "open", "close") if k in step.step)
        if kind == "open":
            self._open(step.step["open"], step)
        elif kind == "close":
            step.conn = step.step["close"]
            self._connection(step)
            self._finish(step.conn, step)
        elif kind.startswith("send"):
            self._send(step, kind)
        elif kind == "expect":
            self._expect(step)
        elif kind == "expectNothing":
            self._expect_nothing(step)
        else:
            self._expect_closed(step)

    def _send(self, step, kind):
        connection, checks = self._connection(step)
        value = step.step[kind]
        if kind == "send":
            data = (_compact(self._substituted(step, value)) + "\n").encode("utf-8")
        elif kind == "sendRaw":
            try:
                data = value.encode("utf-8")
            except UnicodeEncodeError as error:
                self.fail(step, f"case error: sendRaw text is not encodable as UTF-8 (use sendHex): {error}")
        else:
            data = bytes.fromhex(value)
        self._log(step.conn, "-->", data.decode("utf-8", "backslashreplace").removesuffix("\n"))
        checks.sent(data)
        connection.send(data)

    def _substituted(self, step, value):
        """`value` with each string "$ref:NAME" replaced by the value captured as NAME."""
        if isinstance(value, list):
            return [self._substituted(step, item) for item in value]
        if isinstance(value, dict):
            return {key: self._substituted(step, item) for key, item in value.items()}
        if isinstance(value, str) and value.startswith("$ref:"):
            name = value[len("$ref:"):]
            if name not in self.captures:
                self.fail(step, f"case error: {value} refers to nothing captured in an earlier step")
            return self.captures[name]
        return value

    def _receive(self, step, timeout):
        connection, checks = self._connection(step)
        try:
            received = connection.next_message(timeout)
        except WireError as error:
            self.fail(step, str(error))
        if isinstance(received, tuple):
            self._log(step.conn, "<--", received[0])
        elif received is EOF:
            self._log(step.conn, "<--", "(the daemon closed the connection)")
        return received, checks

    def _expect(self, step):
        pattern = step.step["expect"]
        received, checks = self._receive(step, EXPECT_TIMEOUT)
        if received is None:
            self.fail(step, f"no message within {EXPECT_TIMEOUT:g} s", pattern=_compact(pattern))
        if received is EOF:
            self.fail(step, "the daemon closed the connection instead", pattern=_compact(pattern))
        text, message = received
        problems = checks.received(text, message)
        try:
            made = match(pattern, message, self.captures)
        except PatternError as error:
            self.fail(step, f"case error: bad pattern: {error}", pattern=_compact(pattern), received=text)
        except Mismatch as mismatch:
            details = {"pattern": _compact(pattern), "received": text, "mismatch": str(mismatch)}
            if problems:
                details["wire"] = "\n            ".join(problems)
            self.fail(step, "the message does not match", **details)
        if problems:
            self.fail(step, "the message violates the protocol", received=text, wire="\n            ".join(problems))
        self.captures.update(made)

    def _expect_nothing(self, step):
        milliseconds = step.step["expectNothing"]
        received, _ = self._receive(step, milliseconds / 1000)
        if received is EOF:
            self.fail(step, f"the daemon closed the connection (expected nothing for {milliseconds} ms)")
        if received is not None:
            self.fail(step, f"a message arrived (expected nothing for {milliseconds} ms)", received=received[0])

    def _expect_closed(self, step):
        connection, _ = self._connection(step)
        received, _ = self._receive(step, EXPECT_TIMEOUT)
        if received is None:
            self.fail(step, f"the connection is still open after {EXPECT_TIMEOUT:g} s")
        if received is not EOF:
            self.fail(step, "a message arrived (expected the daemon to close the connection)", received=received[0])
        connection.abort()
        del self.connections[step.conn]

    def _finish(self, name, step):
        """Close a connection at a close step or at the end of the case."""
        connection, _ = self.connections[name]
        if connection.has_unread_message():
            text = connection.buffer.split(b"\n", 1)[0].decode("utf-8", "backslashreplace")
            self.fail(step, f"connection {name!r} received a message that no step expected", received=text)
        if not connection.close_and_drain(EXPECT_TIMEOUT):
            self.fail(step, f"the daemon did not close connection {name!r} within {EXPECT_TIMEOUT:g} s after the runner closed it")
        del self.connections[name]


def run_case(case, socket_path, schemas, daemon=None):
    run = CaseRun(case, socket_path, schemas, daemon)
    try:
        run.run()
    finally:
        run.close_all()

"""Checks of every message that crosses one connection, in both directions.

Sent lines are framed like the daemon frames them; each request in them (alone or in a
batch) that names a method with a request schema is validated against that schema and
remembered by id. A response is then validated against its request's response schema,
or error.schema.json; a result that answers a request which failed its schema (or was no
valid request) is a violation, since a daemon must refuse what the schemas refuse.
Notifications are validated against their notification schema. Every received line also
goes through tinyrpc (second_opinion.py) and the redaction check (redaction.py).
"""

import json
from collections import deque

from .second_opinion import TinyRpcCheck
from .wire import parse_strict


def _id_key(value):
    if value is None:
        return ("null", None)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", value)
    return None  # not a valid id: the daemon answers with id null


class WireChecks:
    def __init__(self, schemas, redaction):
        self.schemas = schemas
        self.redaction = redaction
        self.tinyrpc = TinyRpcCheck()
        self.pending = {}  # id key -> deque of (method or None, request schema violations)
        self.unframed = b""
        self.unframed_registered = False  # a possible null-id reply is registered for it

    def sent(self, data):
        """Account for bytes sent: the requests in the lines they complete."""
        lines = (self.unframed + data).split(b"\n")
        self.unframed = lines.pop()
        for line in lines:
            self._sent_line(line)
            self.unframed_registered = False
        if self.unframed and not self.unframed_registered:
            # a line over the limit is refused before its \n is sent
            self.tinyrpc.expect_reply(None)
            self.unframed_registered = True

    def _sent_line(self, line):
        if not line.strip(b" \t\r"):
            return
        if not self.unframed_registered:
            self.tinyrpc.expect_reply(None)
        try:
            value = parse_strict(line.decode("utf-8"))
        except ValueError:
            return
        for element in value if isinstance(value, list) else [value]:
            self._sent_request(element)

    def _sent_request(self, element):
        self.tinyrpc.expect_reply(None)  # whatever it is, it may be refused with id null
        if not isinstance(element, dict):
            return
        method = element.get("method")
        violations = ["not a request of a known method"]
        if isinstance(method, str) and self.schemas.has(self.schemas.request_name(method)):
            violations = self.schemas.errors(self.schemas.request_name(method), element)
            if not violations:
                self.redaction.learn_sent(element)
        key = _id_key(element["id"]) if "id" in element else None
        if key is None:
            return
        self.tinyrpc.expect_reply(element["id"], method if isinstance(method, str) else "(invalid)")
        valid_method = method if isinstance(method, str) and not violations else None
        self.pending.setdefault(key, deque()).append((valid_method, violations))

    def received(self, text, message):
        """Problems with one line received from the daemon."""
        problems = self.redaction.problems(message)
        if isinstance(message, dict) and "method" in message and "id" not in message:
            problems += self.schemas.check_notification(message)
            return problems + self.tinyrpc.check_notification(text)
        problems += self.tinyrpc.check_reply(text)
        if isinstance(message, list):
            if not message:
                return problems + ["an empty array: a batch response has at least one element"]
            for index, element in enumerate(message):
                problems += [f"batch element {index}: {p}" for p in self._response(element)]
            return problems
        return problems + self._response(message)

    def _response(self, response):
        if not isinstance(response, dict):
            return [f"a response must be an object, got {json.dumps(response)[:100]}"]
        queue = self.pending.get(_id_key(response.get("id")))
        method, request_violations = queue.popleft() if queue else (None, [])
        if "result" in response and "error" not in response and request_violations:
            return ["the daemon answered with a result a request that violates its schema:"] + request_violations
        return self.schemas.check_response(method, response)

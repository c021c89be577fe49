"""A second opinion on every response: tinyrpc's JSON-RPC 2.0 client-side parser.

Each connection gets a `tinyrpc.protocols.jsonrpc.JSONRPCProtocol`. Every request the
case sends with an id is registered with it (`create_request`, with an id generator that
yields the id the case used), and so is a possible `null` id for every line sent (a parse
error, an invalid request, a line too long). Each line the daemon sends is then parsed
with `parse_reply` (responses) or `parse_request` (notifications), and what tinyrpc
reconstructs is checked for consistency with JSON-RPC 2.0: a reply answers a request
that is still pending (or has id null), an error code is an integer in a
range JSON-RPC allows for this daemon, a parse error has id null.
"""

from collections import deque

from tinyrpc.exc import InvalidReplyError, UnexpectedIDError
from tinyrpc.protocols.jsonrpc import (
    JSONRPCErrorResponse,
    JSONRPCProtocol,
    JSONRPCSuccessResponse,
)

STANDARD_CODES = {-32700, -32600, -32601, -32602, -32603}
SERVER_CODES = range(-32099, -32000 + 1)  # Milieu's own errors


class TinyRpcCheck:
    def __init__(self):
        self._next_ids = deque()
        self.protocol = JSONRPCProtocol(id_generator=self._ids())

    def _ids(self):
        while True:
            yield self._next_ids.popleft()

    def expect_reply(self, request_id, method="(line)"):
        """Register that a reply with this id (None for null) may come."""
        self._next_ids.append(request_id)
        self.protocol.create_request(method)

    def check_reply(self, text):
        """Problems tinyrpc finds with a response line (a single reply or a batch)."""
        try:
            parsed = self.protocol.parse_reply(text)
        except UnexpectedIDError:
            return ["tinyrpc: the reply's id answers no request sent on this connection that is still pending"]
        except (InvalidReplyError, KeyError, TypeError, AttributeError) as error:
            return [f"tinyrpc: not a valid JSON-RPC 2.0 reply: {error!r}"]
        replies = parsed if isinstance(parsed, list) else [parsed]
        problems = []
        for index, reply in enumerate(replies):
            where = f"tinyrpc: batch element {index}: " if isinstance(parsed, list) else "tinyrpc: "
            problems += [where + p for p in _reply_problems(reply)]
        return problems

    def check_notification(self, text):
        """Problems tinyrpc finds with a daemon-to-client notification line."""
        try:
            request = self.protocol.parse_request(text)
        except Exception as error:  # tinyrpc raises its own RPCError kinds here
            return [f"tinyrpc: not a valid JSON-RPC 2.0 notification: {error!r}"]
        if isinstance(request, list) or not getattr(request, "one_way", False):
            return ["tinyrpc: a message with a method from the daemon must be a notification (no id)"]
        if getattr(request, "args", None):
            return ["tinyrpc: notification params must be by name (an object)"]
        return []


def _reply_problems(reply):
    if isinstance(reply, Exception):
        if isinstance(reply, UnexpectedIDError):
            return ["the reply's id answers no request sent on this connection that is still pending"]
        return [f"not a valid JSON-RPC 2.0 reply: {reply!r}"]
    if isinstance(reply, JSONRPCSuccessResponse):
        return []
    if isinstance(reply, JSONRPCErrorResponse):
        code = reply._jsonrpc_error_code
        if not isinstance(code, int) or isinstance(code, bool):
            return [f"error code {code!r} is not an integer"]
        problems = []
        if code not in STANDARD_CODES and code not in SERVER_CODES:
            problems.append(f"error code {code} is neither a JSON-RPC 2.0 code nor in -32099..-32000")
        if code == -32700 and reply.unique_id is not None:
            problems.append(f"a parse error (-32700) must have id null, not {reply.unique_id!r}")
        if not isinstance(reply.error, str):
            problems.append("error.message is not a string")
        return problems
    return [f"unexpected reply object {reply!r}"]

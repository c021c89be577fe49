"""The check schemas cannot make (SPEC.md §7): secure values never leave the daemon.

The runner learns which properties are secure from `schema/types` (asked once per case,
on a connection of its own) and from the `schema/register` requests a case sends. Then,
in every message the daemon sends:

- an object snapshot (`{object, type, version, owner, values, redacted}`) has no value
  for a name it lists in `redacted`, nor for a secure property of its type;
- a `graph/didChange` change whose path ends in a property name that is secure in every
  type having it carries `redacted: true`, not a value;
- no string anywhere contains a secret: a string of at least 4 characters that the case
  wrote with `graph/set` (alone or in a `graph/transaction`) to such a property.
"""

MIN_SECRET = 4


def _walk(value):
    yield value
    if isinstance(value, dict):
        for member in value.values():
            yield from _walk(member)
    elif isinstance(value, list):
        for element in value:
            yield from _walk(element)


def _is_snapshot(node):
    return (
        isinstance(node, dict)
        and isinstance(node.get("object"), str)
        and isinstance(node.get("type"), str)
        and isinstance(node.get("values"), dict)
        and isinstance(node.get("redacted"), list)
        and all(isinstance(name, str) for name in node["redacted"])
    )


class Redaction:
    def __init__(self):
        self.secure = {}  # type name -> secure property names
        self.plain = set()  # property names that are not secure in some type
        self.secrets = set()

    def learn_types(self, types):
        """Learn from a schema/types result's `types`."""
        for described in types:
            for prop in described.get("properties", []):
                self._learn(described.get("name"), prop.get("name"), prop.get("secure") is True)

    def learn_sent(self, request):
        """Learn from a request the case sends (registered types, secrets written)."""
        method, params = request.get("method"), request.get("params")
        if not isinstance(params, dict):
            return
        if method == "schema/register":
            for declared in params.get("types", []) if isinstance(params.get("types"), list) else []:
                properties = declared.get("properties") if isinstance(declared, dict) else None
                for name, spec in (properties or {}).items() if isinstance(properties, dict) else []:
                    self._learn(declared.get("name"), name, isinstance(spec, dict) and spec.get("secure") is True)
        elif method == "graph/set":
            self._learn_write(params)
        elif method == "graph/transaction" and isinstance(params.get("ops"), list):
            for op in params["ops"]:
                if isinstance(op, dict) and op.get("method") == "graph/set" and isinstance(op.get("params"), dict):
                    self._learn_write(op["params"])

    def _learn(self, type_name, prop, secure):
        if not isinstance(prop, str):
            return
        if secure:
            self.secure.setdefault(type_name, set()).add(prop)
        else:
            self.plain.add(prop)

    def _secure_name(self, name):
        return name not in self.plain and any(name in names for names in self.secure.values())

    def _learn_write(self, params):
        path, value = params.get("path"), params.get("value")
        if isinstance(path, str) and isinstance(value, str) and len(value) >= MIN_SECRET:
            if self._secure_name(path.rsplit(".", 1)[-1]):
                self.secrets.add(value)

    def problems(self, message):
        """Leaks of secure values in one message from the daemon."""
        found = []
        for node in _walk(message):
            if isinstance(node, str):
                found += [f"a secret written to a secure property appears: {node!r}" for s in self.secrets if s in node]
            elif _is_snapshot(node):
                hidden = set(node["redacted"]) | self.secure.get(node["type"], set())
                found += [f"snapshot of {node['object']} shows secure property {name}" for name in node["values"] if name in hidden]
        if isinstance(message, dict) and message.get("method") == "graph/didChange":
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            for change in params.get("changes") or []:
                path = change.get("path") if isinstance(change, dict) else None
                if isinstance(path, str) and "value" in change and self._secure_name(path.rsplit(".", 1)[-1]):
                    found.append(f"graph/didChange shows the value of secure {path}")
        return found

"""Validation of wire messages against protocol/schemas (JSON Schema 2020-12).

Every file of protocol/schemas is loaded into a `referencing.Registry` under its `$id`,
so the relative `$ref`s between them resolve without touching the network.
"""

import json
from pathlib import Path

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"


def method_file(method):
    return method.replace("/", "_")


class Schemas:
    def __init__(self, directory=SCHEMA_DIR):
        contents = [json.loads(path.read_text()) for path in sorted(directory.glob("*.schema.json"))]
        if not contents:
            raise RuntimeError(f"no schemas in {directory}")
        self.registry = Registry().with_resources(
            (schema["$id"], Resource.from_contents(schema)) for schema in contents
        )
        self.by_name = {schema["$id"].rsplit("/", 1)[1]: schema for schema in contents}  # file name -> schema
        self._validators = {}

    def _validator(self, name):
        if name not in self._validators:
            self._validators[name] = Draft202012Validator(self.by_name[name], registry=self.registry)
        return self._validators[name]

    def has(self, name):
        return name in self.by_name

    def request_name(self, method):
        return f"{method_file(method)}.request.schema.json"

    def errors(self, name, message):
        """The violations of `message` against schema `name`, as readable lines."""
        found = sorted(self._validator(name).iter_errors(message), key=lambda e: list(e.absolute_path))
        return [f"{name}: at /{'/'.join(map(str, e.absolute_path))}: {_short(e.message)}" for e in found]

    def check_response(self, method, response):
        """Violations of a response (an element of a batch response, or not) to `method`.

        An error response is checked with error.schema.json whatever the method; a result
        with the method's response schema, or fails when the method is unknown (None)."""
        if "error" in response or "result" not in response:
            return self.errors("error.schema.json", response)
        if method is None:
            return ["a result that answers no pending request of a known method"]
        name = f"{method_file(method)}.response.schema.json"
        if not self.has(name):
            return [f"no response schema {name} for method {method}"]
        return self.errors(name, response)

    def check_notification(self, message):
        method = message.get("method")
        name = f"{method_file(method)}.notification.schema.json" if isinstance(method, str) else None
        if name is None or not self.has(name):
            return [f"no notification schema for method {json.dumps(method)}"]
        return self.errors(name, message)


def _short(text, limit=300):
    return text if len(text) <= limit else text[:limit] + "…"

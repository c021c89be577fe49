"""The protocol's machine-readable documents agree with each other and with SPEC.md; no daemon.

- every file of protocol/schemas is a valid JSON Schema 2020-12 (SPEC 15.4, step 4);
- openrpc.json (what rpc.discover serves) is what scripts/generate writes, and says what the schemas say: its components are
  common.schema.json's definitions, and each method's params and result, and each
  notification's params, are those of the method's request, response or notification schema;
  its errors have the codes and data fields of error.schema.json;
- each method's example in openrpc.json is a request and a response its schemas accept;
- every example exchange in SPEC.md (its ```text blocks, `-->` and `<--` lines) validates
  against the schemas: requests that got a result, responses, notifications.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from runner.schemas import SCHEMA_DIR, Schemas, method_file

PROTOCOL_DIR = SCHEMA_DIR.parent
OPENRPC = json.loads((PROTOCOL_DIR / "openrpc.json").read_text())
SCHEMA_FILES = sorted(SCHEMA_DIR.glob("*.schema.json"))
COMMON = json.loads((SCHEMA_DIR / "common.schema.json").read_text())


def _load(name):
    return json.loads((SCHEMA_DIR / name).read_text())


def _component(method):
    """The OpenRPC component name stem of a method: graph/didChange -> graphDidChange."""
    first, *rest = re.split(r"[/.]", method)
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


def _as_openrpc(value, current):
    """A schema of file `current` as openrpc.json writes it: every $ref into
    `#/components/schemas/…` (common definitions by name, a method's params and result as
    `<method>Params` and `<method>Result`)."""
    if isinstance(value, list):
        return [_as_openrpc(item, current) for item in value]
    if not isinstance(value, dict):
        return value
    converted = {}
    for key, item in value.items():
        if key == "$ref" and isinstance(item, str):
            converted[key] = _ref(item, current)
        else:
            converted[key] = _as_openrpc(item, current)
    return converted


def _ref(ref, current):
    match = re.fullmatch(r"(?:([A-Za-z_.]+)\.schema\.json)?#/\$defs/(.+)", ref)
    assert match, f"{current}: a $ref openrpc.json cannot express: {ref}"
    file, name = match.group(1) or current, match.group(2)
    if file == "common":
        return f"#/components/schemas/{name}"
    stem, _kind = file.rsplit(".", 1)
    assert name in ("params", "result"), f"{current}: a $def of its own that openrpc.json lacks: {ref}"
    return f"#/components/schemas/{_component(stem.replace('_', '/'))}{name.capitalize()}"


def _resolve(schema):
    ref = schema.get("$ref")
    if ref and set(schema) == {"$ref"} and ref.startswith("#/components/schemas/"):
        return OPENRPC["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return schema


def test_the_generated_documents_are_up_to_date():
    """scripts/generate writes openrpc.json from the schemas and openrpc.overlay.json: never by hand."""
    run = subprocess.run([sys.executable, str(PROTOCOL_DIR.parent / "scripts" / "generate"), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=[p.name for p in SCHEMA_FILES])
def test_every_schema_is_a_valid_2020_12_schema(path):
    Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_openrpc_components_are_the_common_definitions():
    components = OPENRPC["components"]["schemas"]
    for name, definition in COMMON["$defs"].items():
        assert name in components, f"openrpc.json lacks common definition {name}"
        assert components[name] == _as_openrpc(definition, "common"), f"openrpc.json's {name} differs from common.schema.json's"


def test_openrpc_lists_every_method_and_notification_that_has_schemas():
    methods = {m["name"] for m in OPENRPC["methods"]}
    notifications = {n["name"] for n in OPENRPC["x-notifications"]}
    for path in SCHEMA_FILES:
        schema = json.loads(path.read_text())
        kind = path.name[: -len(".schema.json")].rsplit(".", 1)[-1]
        if kind == "request":
            assert schema["properties"]["method"]["const"] in methods, path.name
        elif kind == "notification":
            assert schema["properties"]["method"]["const"] in notifications, path.name


@pytest.mark.parametrize("method", OPENRPC["methods"], ids=[m["name"] for m in OPENRPC["methods"]])
def test_openrpc_method_params_and_result_are_the_schemas(method):
    name = method["name"]
    request = _load(f"{method_file(name)}.request.schema.json")
    response = _load(f"{method_file(name)}.response.schema.json")
    components = OPENRPC["components"]["schemas"]
    stem = _component(name)
    params = _as_openrpc(request["$defs"]["params"], f"{method_file(name)}.request")
    result = _as_openrpc(response["$defs"]["result"], f"{method_file(name)}.response")
    assert components.get(f"{stem}Params") == params, f"components/{stem}Params is not {name}'s request params"
    assert components.get(f"{stem}Result") == result, f"components/{stem}Result is not {name}'s response result"
    assert method["result"]["schema"] == {"$ref": f"#/components/schemas/{stem}Result"}
    assert method["paramStructure"] == "by-name"
    shape = _resolve(params)
    properties, required = shape.get("properties", {}), set(shape.get("required", []))
    listed = [(p["name"], p["required"], p["schema"]) for p in method["params"]]
    expected = [(key, key in required, schema) for key, schema in properties.items()]
    assert listed == expected, f"{name}: its params list is not its request schema's params"


@pytest.mark.parametrize("method", OPENRPC["methods"], ids=[m["name"] for m in OPENRPC["methods"]])
def test_openrpc_examples_are_what_the_schemas_accept(method, schemas: Schemas):
    """The example the protocol model's tests decode (openrpc.overlay.json) is a valid exchange."""
    (example,) = method["examples"]
    params = {param["name"]: param["value"] for param in example["params"]}
    request = {"jsonrpc": "2.0", "id": 1, "method": method["name"], "params": params}
    response = {"jsonrpc": "2.0", "id": 1, "result": example["result"]["value"]}
    assert schemas.errors(schemas.request_name(method["name"]), request) == []
    assert schemas.check_response(method["name"], response) == []


@pytest.mark.parametrize("notification", OPENRPC["x-notifications"], ids=[n["name"] for n in OPENRPC["x-notifications"]])
def test_openrpc_notification_params_are_the_schemas(notification):
    name = notification["name"]
    schema = _load(f"{method_file(name)}.notification.schema.json")
    stem = _component(name)
    assert notification["params"] == {"$ref": f"#/components/schemas/{stem}Params"}
    expected = _as_openrpc(schema["$defs"]["params"], f"{method_file(name)}.notification")
    assert OPENRPC["components"]["schemas"].get(f"{stem}Params") == expected, f"{name}: params differ"


def test_openrpc_errors_have_the_codes_and_fields_of_the_error_schema():
    error = _load("error.schema.json")["properties"]["error"]
    stated = {}
    for branch in error["allOf"]:
        kind = branch["if"]["properties"]["data"]["properties"]["kind"]["const"]
        then = branch["then"]["properties"]
        data = then["data"]
        fields = [f if f in data.get("required", []) else f + "?" for f in data["properties"]]
        stated[kind] = (then["code"]["const"], sorted(fields))
    documented = {
        kind: (entry["code"], sorted(entry["data"]["fields"])) for kind, entry in OPENRPC["components"]["errors"].items()
    }
    assert documented == stated
    for method in OPENRPC["methods"]:
        for ref in method["errors"]:
            assert ref["$ref"].rsplit("/", 1)[1] in documented, f"{method['name']}: {ref}"


# --- SPEC.md's examples ------------------------------------------------------------------

def _spec_exchanges():
    """Each ```text block of SPEC.md with `-->`/`<--` lines: a list of (direction, text, line)."""
    blocks, current, number = [], None, 0
    for number, line in enumerate((PROTOCOL_DIR / "SPEC.md").read_text().splitlines(), start=1):
        if line.startswith("```text"):
            current = []
        elif line.startswith("```") and current is not None:
            if current:
                blocks.append(current)
            current = None
        elif current is not None and line.startswith(("--> ", "<-- ")):
            current.append((line[:3], line[4:], number))
    return blocks


SPEC_BLOCKS = _spec_exchanges()


def test_spec_has_examples():
    assert len(SPEC_BLOCKS) > 20


@pytest.mark.parametrize("block", SPEC_BLOCKS, ids=[f"SPEC.md:{b[0][2]}" for b in SPEC_BLOCKS])
def test_spec_examples_validate_against_the_schemas(block, schemas: Schemas):
    methods = {}  # request id -> method, for the block's requests
    requests = []  # (message, line), checked when a result answers them
    problems = []
    answered_with_result = set()
    for direction, text, line in block:
        try:
            message = json.loads(text)
        except ValueError:
            continue  # an example of a line that is not JSON
        items = message if isinstance(message, list) else [message]
        for item in items:
            if not isinstance(item, dict):
                continue
            if direction == "-->":
                if isinstance(item.get("method"), str) and "id" in item:
                    methods[json.dumps(item["id"])] = item["method"]
                    requests.append((item, line))
                continue
            if "method" in item:
                problems += [f"line {line}: {p}" for p in schemas.check_notification(item)]
                continue
            method = methods.get(json.dumps(item.get("id")))
            if "result" in item:
                answered_with_result.add(json.dumps(item.get("id")))
                if method is None:
                    continue  # a response whose request the block does not show
            problems += [f"line {line}: {p}" for p in schemas.check_response(method, item)]
    for request, line in requests:
        if json.dumps(request["id"]) in answered_with_result:
            name = schemas.request_name(request["method"])
            if schemas.has(name):
                problems += [f"line {line}: {p}" for p in schemas.errors(name, request)]
    assert not problems, "\n".join(problems)



# --- What the schemas refuse, as the daemon does -------------------------------------------

REFUSED_PARAMS = [
    # A watch with no target (SPEC 9.12).
    ("watch", {}),
    ("watch", {"paths": [], "views": []}),
    ("watch", {"lifecycle": False, "sinceVersion": 3}),
    # An integer past the signed 64-bit range (SPEC 1.4).
    ("graph/explain", {"version": 9223372036854775808}),
    ("graph/set", {"path": "login.email", "value": "x", "ifVersion": -9223372036854775809}),
    ("view/tree", {"path": "/App", "depth": 9223372036854775808}),
    # A view target outside /App (SPEC 11.1).
    ("watch", {"views": ["/Qpp/Panel"]}),
    ("watch", {"views": ["/App/"]}),
]


@pytest.mark.parametrize("method,params", REFUSED_PARAMS, ids=[f"{m} {json.dumps(p)}" for m, p in REFUSED_PARAMS])
def test_the_schemas_refuse_what_the_daemon_refuses(method, params, schemas: Schemas):
    request = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    assert schemas.errors(schemas.request_name(method), request), f"the schema accepts {json.dumps(params)}"

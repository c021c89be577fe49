"""``milieu inspect`` in a real browser: the page against a real daemon, over its own socket."""

from __future__ import annotations

import json
import socket
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from conftest import URL_PATTERN, Daemon, EventCapture, Inspector, wait_until

GREETING = {
    "parent": "/App", "name": "Greeting", "state": {"count": 0},
    "environment": {"session": {"type": "Session"}}, "body": ["Hello, {session.user}", "count {count}"],
}


def row(page: WebDriver, path: str) -> WebElement:
    return page.find_element("css selector", f'[data-path="{path}"] > .row')


def text_of(page: WebDriver, path: str) -> str:
    return page.find_element("css selector", f'[data-path="{path}"]').text


def until(page: WebDriver, condition: Callable[[], Any], timeout: float = 10) -> Any:
    return WebDriverWait(page, timeout).until(lambda d: condition())


def rpc(inspector: Inspector, method: str, params: dict[str, Any]) -> tuple[int, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": method, "params": params}).encode()
    status, answer = inspector.request("POST", inspector.target("/rpc"), body)
    return status, json.loads(answer)


def test_the_address_is_one_line_on_loopback_with_a_token(inspector: Inspector) -> None:
    assert URL_PATTERN.match(inspector.url)
    assert inspector.process.poll() is None


def test_every_request_without_the_token_is_forbidden(inspector: Inspector) -> None:
    rpc_body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "graph/get", "params": {"path": "theme"}}).encode()
    wrong = "0" * 48
    for method, target, body in [
        ("GET", "/", None), ("GET", "/events", None), ("POST", "/rpc", rpc_body), ("GET", "/favicon.ico", None),
        ("GET", f"/?token={wrong}", None), ("POST", f"/rpc?token={wrong}", rpc_body),
        ("GET", f"/?token={inspector.token[:-1]}", None), ("GET", f"/?tok={inspector.token}", None),
    ]:
        status, answer = inspector.request(method, target, body)
        assert status == 403, (method, target)
        assert b"theme" not in answer and b"<html" not in answer
    status, answer = inspector.request("GET", inspector.target("/"))
    assert status == 200 and answer.startswith(b"<!doctype html>")


def test_rpc_passes_on_reads_and_refuses_what_would_change_the_tree(inspector: Inspector, daemon: Daemon) -> None:
    status, answer = rpc(inspector, "graph/get", {"path": "theme.fontScale"})
    assert (status, answer) == (200, {"jsonrpc": "2.0", "id": 9, "result": 1.0})
    for method in ["shutdown", "view/mount", "view/unmount", "schema/register", "graph/transaction", "watch"]:
        status, answer = rpc(inspector, method, {"parent": "/App", "name": "X"})
        assert status == 403 and answer["error"]["data"]["kind"] == "Forbidden", method
    status, answer = rpc(inspector, "view/dependencies", {"path": "/App"})
    assert status == 200 and answer.get("error", {}).get("data", {}).get("reason") != "inspector"
    with daemon.client() as client:
        assert client.get("theme.fontScale") == 1.0  # still running: shutdown never reached it


def test_the_page_shows_a_view_mounted_over_the_socket(page: WebDriver, daemon: Daemon) -> None:
    with daemon.client() as client:
        client.mount(GREETING)
        client.mount({"parent": "/App/Greeting", "name": "Row", "bindings": {"n": {"$parent": "count"}}, "body": ["n = {n}"]})
        until(page, lambda: page.find_elements("css selector", '[data-path="/App/Greeting/Row"]'))
        assert "Greeting" in text_of(page, "/App/Greeting") and "count 0" in text_of(page, "/App/Greeting")
        assert "n = 0" in text_of(page, "/App/Greeting/Row")
    # The client's connection closed, so its views went with it.
    until(page, lambda: not page.find_elements("css selector", '[data-path="/App/Greeting"]'))


def test_a_write_flashes_each_view_it_re_renders_with_its_reasons(page: WebDriver, daemon: Daemon) -> None:
    with daemon.client() as client:
        client.mount(GREETING)
        client.mount({"parent": "/App/Greeting", "name": "Row", "bindings": {"n": {"$parent": "count"}}, "body": ["n = {n}"]})
        until(page, lambda: page.find_elements("css selector", '[data-path="/App/Greeting/Row"]'))
        client.set("/App/Greeting.count", 5)
        until(page, lambda: "flash" in (row(page, "/App/Greeting").get_attribute("class") or ""))
        until(page, lambda: "_count" in row(page, "/App/Greeting").text and "count 5" in text_of(page, "/App/Greeting"))
        # Greeting passes Row a Binding carrying the new value (@self), which Row read (_n).
        until(page, lambda: "↻ @self _n (v4)" in row(page, "/App/Greeting/Row").text and "n = 5" in text_of(page, "/App/Greeting/Row"))
        client.call("session.start", "kim")
        until(page, lambda: "session.user" in row(page, "/App/Greeting").text and "Hello, kim" in text_of(page, "/App/Greeting"))
        flashes = page.find_element("css selector", '[data-path="/App/Greeting"]').get_attribute("data-flashes") or "0"
        assert int(flashes) >= 2
        activity = page.find_element("id", "activity").text
        assert "v4 ↻ /App/Greeting _count" in activity and "/App/Greeting.count = 5" in activity


def test_evaluation_counts_are_shown_and_advance(page: WebDriver, daemon: Daemon) -> None:
    with daemon.client() as client:
        client.mount(GREETING)
        until(page, lambda: "evaluated 1×, last v2" in row(page, "/App/Greeting").text)
        client.set("/App/Greeting.count", 1)
        until(page, lambda: "evaluated 2×, last v3" in row(page, "/App/Greeting").text)


def test_clicking_a_version_shows_its_cause_and_effect(page: WebDriver, daemon: Daemon) -> None:
    with daemon.client() as client:
        client.mount(GREETING)
        client.mount({"parent": "/App/Greeting", "name": "Row", "inputs": {"n": {"$parent": "count"}}, "body": ["n = {n}"]})
        until(page, lambda: page.find_elements("css selector", '[data-path="/App/Greeting/Row"]'))
        version = client.set("/App/Greeting.count", 5)["version"]
        entry = until(page, lambda: next(
            (item for item in page.find_elements("css selector", "#activity li[data-version]")
             if item.get_attribute("data-version") == str(version) and "↻ /App/Greeting " in item.text), None))
        entry.click()
        until(page, lambda: "↻ /App/Greeting/Row" in page.find_element("id", "explanation").text)
        text = page.find_element("id", "explanation").text
        assert f"v{version} graph/set /App/Greeting.count" in text
        assert "✎ /App/Greeting.count" in text and "→ 5" in text
        assert "↻ /App/Greeting _count #0" in text and "↻ /App/Greeting/Row @self #1" in text
        # A version typed in, and one the daemon has not reached.
        page.find_element("id", "explain-version").clear()
        page.find_element("id", "explain-version").send_keys(f"v{version + 50}")
        page.find_element("css selector", "#explain-form button").click()
        until(page, lambda: "InvalidParams" in page.find_element("id", "explanation").text)


def test_the_form_writes_and_calls_into_the_daemon(page: WebDriver, daemon: Daemon) -> None:
    def submit(form: str, path: str, value: str) -> None:
        fields = {"set": ("set-path", "set-value"), "call": ("call-path", "call-args")}[form]
        for field, text in zip(fields, (path, value)):
            page.find_element("id", field).clear()
            page.find_element("id", field).send_keys(text)
        page.find_element("css selector", f"#{form}-form button").click()

    with daemon.client() as client:
        submit("set", "theme.fontScale", "2.5")
        until(page, lambda: "graph/set theme.fontScale → {\"version\":" in page.find_element("id", "outcome").text)
        assert client.get("theme.fontScale") == 2.5
        submit("set", "theme.fontScale", '"big"')
        until(page, lambda: page.find_element("id", "outcome").text.startswith("TypeMismatch: theme.fontScale expects double"))
        assert "failed" in (page.find_element("id", "outcome").get_attribute("class") or "")
        submit("call", "session.start", '["lee"]')
        until(page, lambda: "graph/call session.start → {\"result\":null" in page.find_element("id", "outcome").text)
        assert client.get("session.user") == "lee"
        submit("call", "login.signIn", "")
        until(page, lambda: page.find_element("id", "outcome").text.startswith("UnknownAction: Login has no action signIn"))


def test_selecting_a_view_shows_its_state_objects_and_body(page: WebDriver, daemon: Daemon) -> None:
    with daemon.client() as client:
        client.mount(GREETING)
        until(page, lambda: page.find_elements("css selector", '[data-path="/App/Greeting"]'))
        row(page, "/App/Greeting").click()
        until(page, lambda: "session: Session#1 (Session, environment)" in page.find_element("id", "details").text)
        details = page.find_element("id", "details").text
        assert "/App/Greeting" in details and "count 0" in details and "token <redacted>" in details
        until(page, lambda: "Session#1 (.environment) from /App" in page.find_element("id", "details").text)
        details = page.find_element("id", "details").text
        assert "Session#1.user session.user" in details and "/App/Greeting.count _count" in details
        row(page, "/App").click()
        until(page, lambda: "login: Login#3 (Login, state)" in page.find_element("id", "details").text)
        assert "password <redacted>" in page.find_element("id", "details").text


def test_object_lifecycles_and_unmounts_are_shown(page: WebDriver, daemon: Daemon) -> None:
    with daemon.client() as client:
        client.mount({"parent": "/App", "name": "Shop", "stateObjects": {"cart": {"type": "Cart"}}, "body": ["{cart.items}"]})
        until(page, lambda: "created (stateObject), owner /App/Shop.cart" in page.find_element("id", "objects").text)
        client.call("/App/Shop.cart.add", "tea")
        until(page, lambda: "_cart" in row(page, "/App/Shop").text)
        client.unmount("/App/Shop")
        until(page, lambda: "destroyed (ownerUnmounted)" in page.find_element("id", "objects").text)
        until(page, lambda: not page.find_elements("css selector", '[data-path="/App/Shop"]'))
        assert "/App/Shop unmounted (unmounted)" in page.find_element("id", "activity").text


def test_a_password_never_reaches_the_page_or_its_event_stream(page: WebDriver, daemon: Daemon, inspector: Inspector) -> None:
    events = EventCapture(inspector)
    secrets = ["hunter2-over-the-socket", "hunter2-from-the-form"]
    try:
        with daemon.client() as client:
            client.mount({
                "parent": "/App", "name": "Password", "bindings": {"secret": {"$parent": "login.password"}},
                "environment": {"login": {"type": "Login"}}, "body": ["password: {login.password}"],
            })
            until(page, lambda: page.find_elements("css selector", '[data-path="/App/Password"]'))
            client.set("login.password", secrets[0])
            until(page, lambda: "login.password" in row(page, "/App/Password").text)
            page.find_element("id", "set-path").send_keys("login.password")
            page.find_element("id", "set-value").send_keys(json.dumps(secrets[1]))
            page.find_element("css selector", "#set-form button").click()
            until(page, lambda: "graph/set login.password → {\"version\":" in page.find_element("id", "outcome").text)
            page.find_element("id", "set-value").clear()
            row(page, "/App/Password").click()
            until(page, lambda: "secret <redacted> ← Login#3.password" in page.find_element("id", "details").text)
            wait_until(lambda: events.text.count("/App/Password") >= 3, what="the stream to carry the re-renders")
        time.sleep(0.3)
        seen = [page.page_source, page.find_element("tag name", "body").text, events.text]
        assert "password: <secure>" in seen[1] or "password: <secure>" in seen[0]
        for secret in secrets:
            for text in seen:
                assert secret not in text
    finally:
        events.close()


def test_a_screenshot_of_the_live_page_is_a_png(page: WebDriver, daemon: Daemon) -> None:
    directory = Path(os.environ.get("MILIEU_SCREENSHOTS") or tempfile.mkdtemp(prefix="milieu-inspect-shots-"))
    directory.mkdir(parents=True, exist_ok=True)
    with daemon.client() as client:
        client.mount(GREETING)
        client.mount({"parent": "/App/Greeting", "name": "Row", "bindings": {"n": {"$parent": "count"}}, "body": ["n = {n}"]})
        client.mount({"parent": "/App", "name": "Shop", "stateObjects": {"cart": {"type": "Cart"}}, "body": ["items: {cart.items}"]})
        until(page, lambda: page.find_elements("css selector", '[data-path="/App/Shop"]'))
        row(page, "/App/Greeting").click()
        until(page, lambda: "Session#1" in page.find_element("id", "details").text)
        client.call("session.start", "kim")
        client.set("/App/Greeting.count", 3)
        until(page, lambda: "flash" in (row(page, "/App/Greeting/Row").get_attribute("class") or ""))
        shot = directory / "inspector.png"
        assert page.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert len(data) > 1000 and data.startswith(b"\x89PNG\r\n\x1a\n")


def test_inspect_stops_with_status_0_on_sigterm(inspector: Inspector) -> None:
    assert inspector.stop() == 0


def test_inspect_says_so_and_exits_3_when_the_daemon_goes_away(inspector: Inspector, daemon: Daemon) -> None:
    daemon.process.terminate()
    assert inspector.process.wait(timeout=10) == 3
    assert "went away" in inspector.stderr_now()


def test_unknown_oversized_and_crowding_requests_are_refused(inspector: Inspector) -> None:
    assert inspector.request("GET", inspector.target("/nothing"))[0] == 404
    assert inspector.request("DELETE", inspector.target("/rpc"))[0] == 405
    token = inspector.token.encode()
    for head, status in [
        (b"POST /rpc?token=" + token + b" HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n", b"413"),  # refused before the body
        (b"GET /?token=" + token + b" HTTP/1.1\r\nX: " + b"a" * 9000, b"431"),
        (b"GET /?token=" + token + b" HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", b"501"),
    ]:
        with socket.create_connection(("127.0.0.1", inspector.port), timeout=10) as raw:
            raw.sendall(head)
            assert raw.recv(64).startswith(b"HTTP/1.1 " + status + b" ")
    # Requests that carry the token have 16 connections of their own: a 17th is refused.
    streams = [EventCapture(inspector) for _ in range(16)]
    try:
        with socket.create_connection(("127.0.0.1", inspector.port), timeout=10) as raw:
            raw.sendall(b"GET /?token=" + token + b" HTTP/1.1\r\n\r\n")
            assert raw.recv(64).startswith(b"HTTP/1.1 503 ")
    finally:
        for stream in streams:
            stream.close()
    # Issue #30, item 12: the slots of streams closed a moment ago are free for the very next
    # request (it got 503 about 1 run in 20 on a loaded machine, before the loop heard the closes).
    assert inspector.request("GET", inspector.target("/"))[0] == 200


def test_idle_connections_without_the_token_cannot_crowd_out_the_page(inspector: Inspector) -> None:
    # Issue #26, item 8: 16 idle connections, each reopened as it closes, kept every page request out (503).
    stop = threading.Event()
    crowd: list[socket.socket] = []

    def keep_crowding() -> None:
        while not stop.is_set():
            for index, raw in enumerate(crowd):
                raw.setblocking(False)
                try:
                    closed = raw.recv(1) == b""
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
                if closed:
                    raw.close()
                    crowd[index] = socket.create_connection(("127.0.0.1", inspector.port), timeout=10)
            time.sleep(0.005)

    crowd.extend(socket.create_connection(("127.0.0.1", inspector.port), timeout=10) for _ in range(16))
    crowder = threading.Thread(target=keep_crowding, daemon=True)
    crowder.start()
    try:
        statuses = [inspector.request("GET", inspector.target("/"))[0] for _ in range(20)]
        assert statuses == [200] * 20
    finally:
        stop.set()
        crowder.join(10)
        for raw in crowd:
            raw.close()


def test_a_request_line_without_the_token_is_refused_before_the_head_ends(inspector: Inspector) -> None:
    with socket.create_connection(("127.0.0.1", inspector.port), timeout=20) as raw:
        raw.sendall(b"GET /?token=" + b"0" * 48 + b" HTTP/1.1\r\nHost: x")  # the head never ends
        assert raw.recv(64).startswith(b"HTTP/1.1 403 ")


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(inspector: Inspector) -> None:
    with socket.create_connection(("127.0.0.1", inspector.port), timeout=20) as raw:
        assert raw.recv(64) == b""  # closed after a short head timeout, with nothing to say


def test_a_request_is_forwarded_as_written_even_when_its_numbers_would_re_encode_longer(
    inspector: Inspector, daemon: Daemon
) -> None:
    # Issue #26, item 9: each 1e2 was forwarded as 100.0, the line passed milieud's 1 MiB limit,
    # milieud closed the inspector's connection and milieu inspect exited.
    head = b'{"jsonrpc":"2.0","id":9,"method":"graph/set","params":{"path":"/App/Nums.xs","value":['
    tail = b"]}}"
    count = (1_048_469 - len(head) - len(tail) + 1) // 4
    body = head + b",".join([b"1e2"] * count) + tail
    assert 1_048_400 < len(body) <= 1_048_576
    with daemon.client() as client:
        client.mount({"parent": "/App", "name": "Nums", "state": {"xs": [1.5]}})
        status, answer = inspector.request("POST", inspector.target("/rpc"), body)
        assert status == 200, answer[:300]
        assert json.loads(answer)["result"]["version"] > 0
        assert client.get("/App/Nums.xs") == [100.0] * count
    assert inspector.process.poll() is None
    assert inspector.request("GET", inspector.target("/"))[0] == 200


def test_a_request_that_would_pass_the_daemons_line_limit_is_refused_with_413(inspector: Inspector, daemon: Daemon) -> None:
    # The body is within the inspector's 1 MiB, but with the envelope the inspector adds (its own
    # id, "jsonrpc") the line would pass milieud's limit: refused up front, the connection kept.
    head = b'{"method":"graph/set","params":{"path":"theme.accentColor","value":"'
    tail = b'"}}'
    body = head + b"a" * (1_048_576 - len(head) - len(tail)) + tail
    assert len(body) == 1_048_576
    status, answer = inspector.request("POST", inspector.target("/rpc"), body)
    assert status == 413, answer[:300]
    error = json.loads(answer)["error"]
    assert error["code"] == -32010 and error["data"] == {"limit": 1_048_576, "kind": "MessageTooLarge"}
    assert inspector.process.poll() is None
    assert rpc(inspector, "graph/get", {"path": "theme.accentColor"}) == (200, {"jsonrpc": "2.0", "id": 9, "result": "blue"})


def test_answers_longer_than_one_read_reach_the_page_and_the_inspector_stays(inspector: Inspector, daemon: Daemon) -> None:
    # Issue #26, item 1: the daemon's answer to rpc.discover (the OpenRPC document, some 150 KB)
    # and a burst of 3000 notifications are lines split across reads, which trapped the inspector.
    status, answer = rpc(inspector, "rpc.discover", {})
    assert status == 200 and answer["result"]["openrpc"].startswith("1.")
    batch = [
        {"jsonrpc": "2.0", "id": n, "method": "graph/set", "params": {"path": "theme.accentColor", "value": f"c{n}"}}
        for n in range(3000)
    ]
    events = EventCapture(inspector)
    try:
        with daemon.client() as client, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
            # A view under /App that reads the colour: each write re-renders it, and the inspector hears of each.
            client.mount({
                "parent": "/App", "name": "Accent", "environment": {"theme": {"type": "Theme"}}, "body": ["{theme.accentColor}"],
            })
            raw.connect(daemon.socket)
            raw.sendall(json.dumps(batch).encode() + b"\n")
            answered = b""
            while not answered.endswith(b"\n"):
                answered += raw.recv(1 << 16)
            assert len(json.loads(answered)) == 3000
            wait_until(lambda: '"c2999"' in events.text, timeout=30, what="the last re-render on the event stream")
    finally:
        events.close()
    assert rpc(inspector, "graph/get", {"path": "theme.accentColor"}) == (200, {"jsonrpc": "2.0", "id": 9, "result": "c2999"})
    assert inspector.process.poll() is None


SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def paste_and_load(page: WebDriver, source: str) -> str:
    """Puts `source` in the page's source box as a paste would, presses Load; the outcome line."""
    page.execute_script("document.getElementById('source').value = arguments[0]", source)
    previous = page.find_element("id", "load-outcome").text
    page.execute_script("document.getElementById('load-outcome').textContent = ''")
    page.find_element("id", "load-source").click()
    until(page, lambda: page.find_element("id", "load-outcome").text not in ("", previous) or
          page.find_element("id", "load-outcome").text)
    return str(page.find_element("id", "load-outcome").text)


def control(page: WebDriver, kind: str, label: str, act: Callable[[WebElement], Any] = lambda field: field) -> Any:
    """Does `act` to the selected view's control of `kind` labelled `label` (its button or field),
    found afresh when the details were redrawn meanwhile (a re-render redraws them)."""
    def attempt() -> Any:
        try:
            holders = page.find_elements("css selector", f'#details .control[data-kind="{kind}"][data-label="{label}"]')
            return holders and [act(holders[0].find_element("css selector", "button, input, select"))]
        except StaleElementReferenceException:
            return False
    return until(page, attempt)[0]


def select(page: WebDriver, path: str) -> None:
    """Clicks the row of the view at `path` once the tree shows it (again, after a reload)."""
    def attempt() -> bool:
        try:
            row(page, path).click()
            return True
        except (NoSuchElementException, StaleElementReferenceException):
            return False
    until(page, attempt)
    until(page, lambda: page.execute_script("return document.querySelector('#details h3.path')?.textContent") == path)


def test_pasted_swift_loads_and_its_fields_toggle_and_buttons_work(page: WebDriver, daemon: Daemon) -> None:
    # Seed 000 as the article gives it: type an email in both login views, flip the toggle.
    outcome = paste_and_load(page, (SEEDS / "000_00.swift").read_text())
    assert outcome.startswith("loaded: mounted /App/ContainerView"), outcome
    notes = page.find_element("id", "diagnostics").text
    assert "pasted.swift:29:13: note: roundedField() is declared in an extension of View" in notes
    for login in ("LoginView1", "LoginView2"):
        path = f"/App/ContainerView/{login}"
        select(page, path)
        control(page, "textField", "이메일을 입력해 주세요...", lambda field: field.send_keys("kim@example.com\n"))
        until(page, lambda: 'email "kim@example.com"' in page.find_element("id", "details").text)
        assert "view/input" in page.find_element("id", "outcome").text
    with daemon.client() as client:
        assert client.get("/App/ContainerView/LoginView2.loginVM.email") == "kim@example.com"
        select(page, "/App/ContainerView")
        assert not control(page, "toggle", "토글해봅시다", lambda field: field.is_selected())
        control(page, "toggle", "토글해봅시다", lambda field: field.click())
        until(page, lambda: "/App/ContainerView.toggle" in page.find_element("id", "outcome").text
              or "view/input" in page.find_element("id", "outcome").text)
        wait_until(lambda: client.get("/App/ContainerView.toggle") is True, what="the toggle's write")
        # LoginView1's @StateObject survives its parent's re-render; LoginView2's @ObservedObject is built again.
        assert client.get("/App/ContainerView/LoginView1.loginVM.email") == "kim@example.com"
        assert client.get("/App/ContainerView/LoginView2.loginVM.email") == ""
        select(page, "/App/ContainerView/LoginView1")
        until(page, lambda: control(page, "button", "로그인", lambda field: field.is_enabled()))
        control(page, "button", "로그인", lambda field: field.click())
        until(page, lambda: "view/tap" in page.find_element("id", "outcome").text)
        wait_until(lambda: client.get("/App/ContainerView/LoginView1.loginVM.isUserLoggedIn") is True, what="the tap")
        select(page, "/App/ContainerView/LoginView2")
        assert not control(page, "button", "로그인", lambda field: field.is_enabled())  # .disabled(!loginVM.isValidEmail): its email is empty


def test_an_edited_source_loaded_again_replaces_its_types_and_views(page: WebDriver, daemon: Daemon) -> None:
    counter = """
import SwiftUI
class Counter: ObservableObject { @Published var count = 0 }
struct CounterView: View {
    @StateObject var counter = Counter()
    var body: some View { Button("+") { counter.count += 1 }; Text("\\(counter.count)") }
}
#Preview { CounterView() }
"""
    assert paste_and_load(page, counter).startswith("loaded: mounted /App/CounterView")
    with daemon.client() as client:
        select(page, "/App/CounterView")
        control(page, "button", "+", lambda field: field.click())
        wait_until(lambda: client.get("/App/CounterView.counter.count") == 1, what="the tap")
        edited = counter.replace("@Published var count = 0", "@Published var count = 0\n    @Published var step = 5") \
            .replace("counter.count += 1", "counter.count += counter.step")
        assert paste_and_load(page, edited).startswith("loaded: mounted /App/CounterView")
        # Mounted afresh with the edited type: a new Counter, with the new property and action.
        assert client.get("/App/CounterView.counter.step") == 5
        assert client.get("/App/CounterView.counter.count") == 0
        select(page, "/App/CounterView")
        control(page, "button", "+", lambda field: field.click())
        wait_until(lambda: client.get("/App/CounterView.counter.count") == 5, what="the edited action")


def test_source_that_cannot_load_shows_the_compilers_diagnostics(page: WebDriver, inspector: Inspector) -> None:
    outcome = paste_and_load(page, "import SwiftUI\nstruct Broken: View {\n    var body: some View { Text(\"a\" }\n}\n")
    assert outcome == "the source cannot be loaded"
    diagnostics = page.find_element("id", "diagnostics").find_elements("css selector", "li.error")
    assert diagnostics and diagnostics[0].text.startswith("pasted.swift:3:"), [d.text for d in diagnostics]
    # Over HTTP: not UTF-8 is refused with 400, other methods with 405, and nothing is mounted.
    status, body = inspector.request("POST", inspector.target("/load"), b"\xff\xfe")
    assert status == 400 and json.loads(body)["error"] == "the source is not UTF-8 text"
    assert inspector.request("GET", inspector.target("/load"))[0] == 405
    assert rpc(inspector, "view/tree", {"path": "/App", "depth": 0})[1]["result"]["root"]["childCount"] == 0


def holds(page: WebDriver, path: str) -> list[dict[str, str]]:
    """What the tree shows `path` holding: each object's text, kind, and who else holds it."""
    return page.execute_script(
        """return [...document.querySelectorAll(`[data-path="${arguments[0]}"] > .holds .hold`)].map((tag) =>
             ({text: tag.textContent, kind: tag.dataset.kind, shared: tag.classList.contains('shared') ? tag.title : ''}))""",
        path)


def test_the_tree_shows_who_owns_borrows_and_shares_each_object(page: WebDriver, daemon: Daemon) -> None:
    # Issue #30, item 11: the heart of @StateObject against @ObservedObject is who holds which object.
    scene = json.loads((Path(__file__).resolve().parents[2] / "scenes" / "s1-login.json").read_text())
    with daemon.client() as client:
        client.load(scene)
        fixed = "/App/FixedContainerView"
        until(page, lambda: len(holds(page, f"{fixed}/LoginView2")) == 1)
        owner = holds(page, fixed)[0]
        assert owner["kind"] == "owns" and owner["text"].startswith("owns LoginViewModel#") and "(@StateObject loginVM)" in owner["text"]
        shared = owner["text"].split()[1]
        for child in ("LoginView1", "LoginView2"):
            borrowed = holds(page, f"{fixed}/{child}")[0]
            assert borrowed["text"] == f"borrows {shared} (@ObservedObject loginVM)"
            assert f"{fixed}" in borrowed["shared"] and "also held by" in borrowed["shared"]
        alone = holds(page, "/App/ContainerView/LoginView2")[0]
        assert alone["kind"] == "borrows" and alone["shared"] == ""
        assert holds(page, "/App/ContainerView/LoginView1")[0]["kind"] == "owns"
        # Hovering one lights up every view holding the same object, and only those.
        ActionChains(page).move_to_element(
            page.find_element("css selector", f'[data-path="{fixed}/LoginView1"] > .holds .hold')).perform()
        lit = page.execute_script("return [...document.querySelectorAll('.hold.same-object')].map((t) => t.dataset.object)")
        assert lit == [shared] * 3
        # The toggle makes LoginView2 a new LoginViewModel: the tree follows.
        before = alone["text"]
        client.set("/App/ContainerView.toggle", True)
        until(page, lambda: holds(page, "/App/ContainerView/LoginView2")[0]["text"] != before)

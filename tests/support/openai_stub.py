"""A local OpenAI-compatible chat server for tests (stdlib http.server in a thread).

`respond(body) -> (status, payload_dict)` decides each answer; every request body is
kept in `requests` so tests can check what arrived (images as data URLs, n, stop...).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def chat_payload(texts: list[str], prompt_tokens: int = 5, completion_tokens: int = 3) -> dict[str, Any]:
    return {
        "id": "stub", "object": "chat.completion", "model": "stub",
        "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                    for i, t in enumerate(texts)],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


class StubServer:
    def __init__(self, respond: Callable[[dict[str, Any]], tuple[int, dict[str, Any]]], delay: float = 0.0):
        self.respond = respond
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append(body)
                if stub.delay:
                    time.sleep(stub.delay)
                status, payload = stub.respond(body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

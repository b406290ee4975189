# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""bench/s3.py's LatencyProxy against a plain HTTP/1.1 server: every request on a keep-alive
connection waits the delay once, a chunked body arrives whole and is not delayed per chunk,
requests are counted by S3 kind, and stop() closes the port."""

from __future__ import annotations

import http.client
import socket
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from s3 import LatencyProxy, request_kind  # noqa: E402

DELAY_MS = 200


class Echo(BaseHTTPRequestHandler):
    """Answers every request with the method, path and body length it received."""

    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        if "chunked" in self.headers.get("Transfer-Encoding", ""):
            body = b""
            while size := int(self.rfile.readline().split(b";")[0], 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        reply = f"{self.command} {self.path} {len(body)}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply)

    do_GET = do_HEAD = do_PUT = do_DELETE = _answer

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_each_request_on_a_kept_connection_waits(upstream: str) -> None:
    with LatencyProxy(upstream, DELAY_MS) as proxy:
        port = int(proxy.endpoint.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        answers, waits = [], []
        for method, path in [("GET", "/b/k1"), ("HEAD", "/b/k1"), ("GET", "/b?list-type=2"), ("GET", "/b/k2")]:
            started = time.perf_counter()
            connection.request(method, path)
            answers.append(connection.getresponse().read().decode())
            waits.append(time.perf_counter() - started)
        connection.close()
        assert answers == ["GET /b/k1 0", "", "GET /b?list-type=2 0", "GET /b/k2 0"]
        assert all(DELAY_MS / 1000 <= w < 2 * DELAY_MS / 1000 + 0.2 for w in waits), waits
        assert proxy.counts() == {"GET": 2, "HEAD": 1, "LIST": 1, "PUT": 0, "POST": 0, "DELETE": 0, "OTHER": 0}


def test_a_chunked_body_arrives_whole_and_waits_once(upstream: str) -> None:
    with LatencyProxy(upstream, DELAY_MS, log_requests=True) as proxy:
        port = int(proxy.endpoint.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        chunks = [b"x" * 70_000, b"y" * 5, b"z" * 100_000]
        started = time.perf_counter()
        connection.request("PUT", "/b/k", body=iter(chunks), encode_chunked=True)
        answer = connection.getresponse().read().decode()
        waited = time.perf_counter() - started
        connection.request("PUT", "/b/k2", body=b"abc")
        assert connection.getresponse().read().decode() == "PUT /b/k2 3"
        connection.close()
        assert answer == f"PUT /b/k {sum(map(len, chunks))}"
        assert waited < 2 * DELAY_MS / 1000 + 0.2
        assert proxy.counts()["PUT"] == 2
        assert [(m, t) for m, t, _, _ in proxy.requests()] == [("PUT", "/b/k"), ("PUT", "/b/k2")]


def test_stop_closes_the_port(upstream: str) -> None:
    proxy = LatencyProxy(upstream, 0).start()
    port = int(proxy.endpoint.rsplit(":", 1)[1])
    kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    kept.request("GET", "/b/k")
    assert kept.getresponse().read() == b"GET /b/k 0"
    proxy.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_request_kinds() -> None:
    assert request_kind("GET", "/bucket?list-type=2&prefix=t%2F") == "LIST"
    assert request_kind("GET", "/bucket/") == "LIST"
    assert request_kind("GET", "/bucket/t/part-0.parquet") == "GET"
    assert request_kind("HEAD", "/bucket/t") == "HEAD"
    assert request_kind("PATCH", "/bucket/t") == "OTHER"

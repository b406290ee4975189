# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""A loopback HTTP proxy in front of the S3 server that shows every object with one fixed
``Last-Modified`` time: the store's clock as a client sees it when that clock is far behind
(S3 accepts requests from clocks up to 15 minutes off) and when an object is replaced within
the same second. Requests pass unchanged (their SigV4 signatures name the proxy's host, which
the server checks as sent); only response times are rewritten, in ``Last-Modified`` headers
and in the ``<LastModified>`` elements of listings.

With it, an object replaced with the same length keeps its length and time and changes only
its etag, deterministically, and an object written a moment ago looks a year old.

    with StoreClockProxy(os.environ["SPARKBLOOM_S3_ENDPOINT"]) as proxy:
        ... fs.s3a.endpoint = proxy.endpoint ...
"""

from __future__ import annotations

import http.client
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A whole second, a year before any test runs: far behind every driver's clock.
FROZEN_HTTP_DATE = "Wed, 01 Jan 2025 00:00:00 GMT"
FROZEN_ISO_DATE = b"2025-01-01T00:00:00.000Z"
LIST_TIME = re.compile(rb"<LastModified>[^<]*</LastModified>")
# Hop-by-hop headers the proxy answers itself.
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "expect", "proxy-connection", "te", "upgrade"}


class StoreClockProxy:
    """Forwards to ``target`` (``http://host:port``) from ``endpoint``, rewriting times."""

    def __init__(self, target: str) -> None:
        parsed = urllib.parse.urlsplit(target)
        self._upstream = (parsed.hostname or "127.0.0.1", parsed.port or 80)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> StoreClockProxy:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        upstream = self._upstream

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: object) -> None:
                pass

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    parts = []
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            return b"".join(parts)
                        parts.append(self.rfile.read(size))
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))

            def _forward(self) -> None:
                body = self._body()
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
                if body or self.command in ("PUT", "POST"):
                    headers["Content-Length"] = str(len(body))
                connection = http.client.HTTPConnection(*upstream, timeout=120)
                try:
                    connection.request(self.command, self.path, body=body or None, headers=headers)
                    response = connection.getresponse()
                    payload = response.read()
                    if payload and b"<LastModified>" in payload:
                        payload = LIST_TIME.sub(b"<LastModified>" + FROZEN_ISO_DATE + b"</LastModified>", payload)
                    self.send_response_only(response.status, response.reason)
                    for key, value in response.getheaders():
                        lower = key.lower()
                        if lower in HOP_HEADERS or lower == "content-length":
                            continue
                        self.send_header(key, FROZEN_HTTP_DATE if lower == "last-modified" else value)
                    length = response.getheader("Content-Length") if self.command == "HEAD" else str(len(payload))
                    self.send_header("Content-Length", length or "0")
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                finally:
                    connection.close()

            do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _forward

        return Handler

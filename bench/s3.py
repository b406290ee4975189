# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""S3 on loopback for benchmarks and tests: the server's settings (dev/s3-server) and a
latency proxy that holds every HTTP request a fixed time before forwarding it, and counts
requests by kind.

The proxy parses request boundaries (head, then a ``Content-Length`` or chunked body), so a
keep-alive connection's second request waits again, and a large PUT sent in many TCP
segments waits once. Responses are copied through unparsed: the delay models the round trip
of a request, not bandwidth. It counts the bytes of the responses it passes back (heads and
bodies), so a reader's whole-object prefetch shows. Start it in-process::

    with LatencyProxy("http://127.0.0.1:8333", delay_ms=50) as proxy:
        ... proxy.endpoint ..., proxy.counts()

or as a process: ``dev/s3-latency-proxy --delay-ms 50 --target http://127.0.0.1:8333``.
Standard library only, so that any interpreter (DuckDB's venv too) can import it.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent

#: The kinds counted: S3's ListObjects is a GET on the bucket, told apart from an object's GET.
KINDS = ("GET", "HEAD", "LIST", "PUT", "POST", "DELETE", "OTHER")


def request_kind(method: str, target: str) -> str:
    """GET, HEAD, LIST, PUT, POST, DELETE or OTHER for a path-style S3 request line."""
    path = urlsplit(target).path
    key = path.lstrip("/").partition("/")[2]
    if method == "GET" and not key:
        return "LIST"
    return method if method in KINDS else "OTHER"


@dataclass
class LatencyProxy:
    """A loopback HTTP/1.1 proxy in front of ``target`` adding ``delay_ms`` to every request.

    ``start()`` runs it on its own event loop in a daemon thread; ``endpoint`` is then its
    address. ``log_requests`` keeps every request's method, target and Range header (for
    reading what a query asked for, request by request)."""

    target: str
    delay_ms: float = 50.0
    port: int = 0
    log_requests: bool = False
    endpoint: str = ""
    _counts: Counter[str] = field(default_factory=Counter)
    _response_bytes: int = 0
    _response_chunks: list[tuple[float, int]] = field(default_factory=list)
    _log: list[tuple[str, str, str, str]] = field(default_factory=list)
    _started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _server: asyncio.Server | None = None
    _connections: set[asyncio.Task[None]] = field(default_factory=set)

    def start(self) -> LatencyProxy:
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._listen())
            except BaseException as e:  # reported to start()'s caller
                failure.append(e)
                started.set()
                return
            started.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="s3-latency-proxy", daemon=True)
        self._thread.start()
        started.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        """Closes the listening socket and every open connection, then ends the loop's thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._close(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        self._loop = self._thread = None

    def __enter__(self) -> LatencyProxy:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def counts(self) -> dict[str, int]:
        """Requests forwarded so far, by kind (every kind present, zeros included)."""
        with self._lock:
            return {k: self._counts[k] for k in KINDS}

    def response_bytes(self) -> int:
        """Bytes passed back from the server so far, response heads included."""
        with self._lock:
            return self._response_bytes

    def clock(self) -> float:
        """Now, on the clock of the request log's times (seconds since the start)."""
        return time.monotonic() - self._started

    def response_bytes_between(self, start: float, end: float) -> int:
        """Bytes passed back between two times of :meth:`clock`, if ``log_requests``."""
        with self._lock:
            return sum(n for at, n in self._response_chunks if start <= at <= end)

    def requests(self) -> list[tuple[str, str, str, str]]:
        """(method, target, Range header, seconds since the start when it arrived) of each
        request so far, if ``log_requests``: how many were in flight at once shows."""
        with self._lock:
            return list(self._log)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        port = self._server.sockets[0].getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{port}"

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        target = urlsplit(self.target)
        upstream_writer: asyncio.StreamWriter | None = None
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                target.hostname, target.port, limit=1 << 20
            )
            # Responses stream back as they come (a 100-continue before the body it asks
            # for, too), while requests are parsed one at a time.
            responses = asyncio.create_task(self._copy_responses(upstream_reader, client_writer))
            try:
                await self._forward_requests(client_reader, upstream_writer)
                await responses
            finally:
                responses.cancel()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            for writer in (client_writer, upstream_writer):
                if writer is not None:
                    writer.close()
            self._connections.discard(task)

    async def _forward_requests(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break  # the client closed the connection between requests
            lines = head.decode("latin-1").split("\r\n")
            method, target = (lines[0].split(" ") + ["", ""])[:2]
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            with self._lock:
                self._counts[request_kind(method, target)] += 1
                if self.log_requests:
                    at = f"{time.monotonic() - self._started:.3f}"
                    self._log.append((method, target, headers.get("range", ""), at))
            if self.delay_ms > 0:
                await asyncio.sleep(self.delay_ms / 1000)
            writer.write(head)
            if "chunked" in headers.get("transfer-encoding", "").lower():
                await _copy_chunked(reader, writer)
            else:
                await _copy_exactly(reader, writer, int(headers.get("content-length", "0") or 0))
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    async def _copy_responses(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # large reads: whole-object GETs of ~1 MB pass through with little Python per byte
        while data := await reader.read(1 << 20):
            with self._lock:
                self._response_bytes += len(data)
                if self.log_requests:
                    self._response_chunks.append((self.clock(), len(data)))
            writer.write(data)
            await writer.drain()
        writer.close()


async def _copy_exactly(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
    while n > 0:
        data = await reader.read(min(n, 1 << 16))
        if not data:
            raise asyncio.IncompleteReadError(b"", n)
        writer.write(data)
        n -= len(data)
        await writer.drain()


async def _copy_chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while True:
        size_line = await reader.readuntil(b"\r\n")
        writer.write(size_line)
        size = int(size_line.split(b";")[0].strip(), 16)
        if size == 0:
            # trailers, if any, then the empty line that ends the body
            while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
                writer.write(line)
            writer.write(line)
            return
        await _copy_exactly(reader, writer, size + 2)  # the chunk and its CRLF


def server_env(start: bool = True) -> dict[str, str]:
    """dev/s3-server's environment (SPARKBLOOM_S3_ENDPOINT, ..._SPARK_CONF, ...), starting the
    server if ``start`` and it is not running (honours SPARKBLOOM_S3_RUN)."""
    command = [str(ROOT / "dev" / "s3-server"), "start" if start else "status"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    env = {}
    for line in out.splitlines():
        if line.startswith("export "):
            key, value = line[len("export ") :].split("=", 1)
            env[key] = shlex.split(value)[0] if value else ""
    return env


def spark_s3_conf(env: dict[str, str], endpoint: str | None = None) -> dict[str, str]:
    """The Spark settings of dev/s3-server's environment, the endpoint replaced by ``endpoint``
    (a proxy's) if given."""
    conf = dict(setting.split("=", 1) for setting in env["SPARKBLOOM_S3_SPARK_CONF"].split())
    if endpoint is not None:
        conf["spark.hadoop.fs.s3a.endpoint"] = endpoint
    return conf


def s3a_jars(line: str) -> list[str]:
    """The S3A jars of a Spark line (fetched by dev/s3-jars if missing)."""
    subprocess.run([str(ROOT / "dev" / "s3-jars"), line], check=True, capture_output=True)
    return sorted(str(p) for p in (ROOT / ".cache" / "s3" / line / "jars").glob("*.jar"))


def main() -> None:
    import argparse
    import signal

    parser = argparse.ArgumentParser(description="Adds a fixed delay to every HTTP request to an S3 server.")
    parser.add_argument("--target", default=os.environ.get("SPARKBLOOM_S3_ENDPOINT"), help="the server's URL")
    parser.add_argument("--delay-ms", type=float, default=50.0)
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    args = parser.parse_args()
    if not args.target:
        parser.error("--target (or SPARKBLOOM_S3_ENDPOINT) names the server")
    proxy = LatencyProxy(args.target, args.delay_ms, args.port).start()
    print(f"export SPARKBLOOM_S3_PROXY_ENDPOINT={proxy.endpoint}", flush=True)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())
    stopped.wait()
    proxy.stop()
    counts = ", ".join(f"{k} {n}" for k, n in proxy.counts().items() if n)
    print(f"[s3-latency-proxy] stopped; requests forwarded: {counts or 'none'}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""A local HTTP server that answers ``hf_hub_download`` the way the Hugging Face hub does.

Point ``huggingface_hub`` at it with ``endpoint=hub.url`` (or ``HF_ENDPOINT`` in a
subprocess).  It serves ``HEAD``/``GET /{org}/{name}/resolve/{revision}/{file}`` with
the headers a download needs (``X-Repo-Commit``, ``ETag``, ``Content-Length``), answers
missing repos, revisions and files with the hub's ``X-Error-Code`` values, and records
every request so tests can assert what was (and was not) asked for.  A ``GET`` of a
``.safetensors`` file must carry a ``Range`` header (as huggingface_hub's
``get_safetensors_metadata`` sends): it is answered 206 with the requested bytes, cut at
the end of the file's header, so a weight byte is never served; without one the answer
is 400.  It listens on
127.0.0.1 only and shuts itself down after :data:`LIFETIME_SECONDS` at the latest.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LIFETIME_SECONDS = 60.0
"""A server still running after this long stops by itself."""

MAIN_COMMIT = "a" * 40
TAG_COMMIT = "b" * 40
DEV_COMMIT = "c" * 40
BARE_COMMIT = "d" * 40


@dataclass
class FakeRepo:
    """One repo on the fake hub: its commits' files, its branches and tags."""

    commits: Mapping[str, Mapping[str, bytes]]
    refs: Mapping[str, str]
    token: str | None = None
    """When set, only ``Authorization: Bearer <token>`` gets in (a private repo)."""
    gated: bool = False
    """With ``token`` set: a request without the right token is told the repo is gated."""
    failure: tuple[int, Mapping[str, str]] | None = None
    """When set, every request gets this status and these headers (a broken hub)."""


@dataclass(frozen=True)
class Request:
    """One request the fake hub received."""

    method: str
    path: str
    authorization: str | None
    range: str | None = None
    """The ``Range`` header, if any."""

    @property
    def filename(self) -> str:
        """The file asked for: the path after ``/resolve/{revision}/``."""
        parts = self.path.split("/", 5)
        return unquote(parts[5]) if len(parts) == 6 else ""


@dataclass
class FakeHub:
    """The running server: its URL and the requests it has received."""

    url: str
    requests: list[Request] = field(default_factory=list)
    served_ranges: list[tuple[str, int, int, int]] = field(default_factory=list)
    """For each ranged answer: the file, the first and last byte served, and where the
    file's header ends (the first weight byte)."""

    def resolve_requests(self) -> list[Request]:
        """The requests for a file of a repo (``/{org}/{name}/resolve/...``)."""
        return [r for r in self.requests if r.path.split("/")[3:4] == ["resolve"]]

    def files_requested(self) -> set[str]:
        """Every file name any request asked for."""
        return {request.filename for request in self.resolve_requests()}


def git_blob_id(data: bytes) -> str:
    """The id git (and so the hub's ETag) gives a file that is not in LFS."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def draft_repo(config: bytes, *, token: str | None = None, gated: bool = False) -> FakeRepo:
    """A repo with ``config.json`` and tokenizer files on main, a tag, a branch and a
    commit without config.json; every commit also offers weights and code."""
    shared = {
        "tokenizer.json": b'{"version": "1.0", "added_tokens": []}',
        "tokenizer_config.json": b'{"pad_token": "<pad>"}',
        "model.safetensors": b"\0" * 64,
        "modeling_draft.py": b"raise SystemExit('never run me')\n",
    }
    return FakeRepo(
        commits={
            MAIN_COMMIT: {"config.json": config, **shared},
            TAG_COMMIT: {"config.json": config.rstrip()[:-1] + b', "tagged": true}', **shared},
            DEV_COMMIT: {"config.json": config},
            BARE_COMMIT: {"README.md": b"# no config here\n"},
        },
        refs={"main": MAIN_COMMIT, "v1.0": TAG_COMMIT, "dev": DEV_COMMIT, "bare": BARE_COMMIT},
        token=token,
        gated=gated,
    )


@contextmanager
def serve(repos: Mapping[str, FakeRepo]) -> Iterator[FakeHub]:
    """Run a fake hub serving ``repos`` (keyed by ``ORG/NAME``) for the ``with`` block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(repos))
    server.daemon_threads = True
    host, port = server.server_address[:2]
    hub = FakeHub(url=f"http://{host!s}:{port}")
    server.hub = hub  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    guard = threading.Timer(LIFETIME_SECONDS, server.shutdown)
    guard.daemon = True
    thread.start()
    guard.start()
    try:
        yield hub
    finally:
        guard.cancel()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _handler_class(repos: Mapping[str, FakeRepo]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 5  # a stuck client cannot hold a thread for long

        def do_HEAD(self) -> None:
            self._answer(send_body=False)

        def do_GET(self) -> None:
            self._answer(send_body=True)

        def do_POST(self) -> None:
            self._record()
            self._send(405, {}, b"")

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: tests read ``hub.requests`` instead."""

        def _record(self) -> None:
            hub: FakeHub = self.server.hub  # type: ignore[attr-defined]
            hub.requests.append(
                Request(
                    self.command,
                    urlsplit(self.path).path,
                    self.headers.get("Authorization"),
                    self.headers.get("Range"),
                )
            )

        def _answer(self, *, send_body: bool) -> None:
            self._record()
            parts = urlsplit(self.path).path.split("/", 5)
            if len(parts) != 6 or parts[0] or parts[3] != "resolve":
                self._send(404, {}, b"not a resolve URL", send_body=send_body)
                return
            repo = repos.get(f"{unquote(parts[1])}/{unquote(parts[2])}")
            revision, filename = unquote(parts[4]), unquote(parts[5])
            if repo is not None and repo.failure is not None:
                self._send(*repo.failure, b"", send_body=send_body)
                return
            if repo is None or (
                repo.token is not None
                and not repo.gated
                and self.headers.get("Authorization") != f"Bearer {repo.token}"
            ):
                self._send(401, {"X-Error-Code": "RepoNotFound"}, b"", send_body=send_body)
                return
            if repo.gated and self.headers.get("Authorization") != f"Bearer {repo.token}":
                self._send(403, {"X-Error-Code": "GatedRepo"}, b"", send_body=send_body)
                return
            commit = repo.refs.get(revision, revision if revision in repo.commits else None)
            if commit is None:
                self._send(404, {"X-Error-Code": "RevisionNotFound"}, b"", send_body=send_body)
                return
            data = repo.commits[commit].get(filename)
            if data is None:
                headers = {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": commit}
                self._send(404, headers, b"", send_body=send_body)
                return
            headers = {"X-Repo-Commit": commit, "ETag": f'"{git_blob_id(data)}"'}
            if filename.endswith(".safetensors") and send_body:
                self._send_header_bytes(filename, data, headers)
            else:
                self._send(200, headers, data, send_body=send_body)

        def _send_header_bytes(self, filename: str, data: bytes, headers: dict[str, str]) -> None:
            """A ranged GET of a safetensors file: 206, never past the end of its header."""
            asked = self.headers.get("Range", "")
            start_text, _, end_text = asked.removeprefix("bytes=").partition("-")
            if not asked.startswith("bytes=") or not start_text.isdigit():
                self._send(400, {}, b"weights are never served whole: send a Range header")
                return
            header_end = 8 + int.from_bytes(data[:8], "little")
            start = int(start_text)
            end = min(int(end_text) if end_text.isdigit() else len(data) - 1, header_end - 1)
            hub: FakeHub = self.server.hub  # type: ignore[attr-defined]
            hub.served_ranges.append((filename, start, end, header_end))
            ranged = {**headers, "Content-Range": f"bytes {start}-{end}/{len(data)}"}
            self._send(206, ranged, data[start : end + 1])

        def _send(
            self, status: int, headers: Mapping[str, str], body: bytes, *, send_body: bool = True
        ) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)

    return Handler

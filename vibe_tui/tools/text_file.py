"""Text files on disk: decoding (UTF-8 or latin-1, a BOM, CRLF line endings) so a file
is written back the way it was read, the atomic write, and lines and unified diffs as an
editor and git count them."""

from __future__ import annotations

import difflib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.tools.base import ToolError
from vibe_tui.tools.paths import display_path, where_instead

# Past this a file is a log or a data dump; reading it whole would stall the session.
MAX_FILE_BYTES = 64 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192
UTF8_BOM = b"\xef\xbb\xbf"
# Bytes that do not occur in text files of any single-byte encoding we would meet.
_CONTROL_BYTES = frozenset(range(0x20)) - frozenset(b"\t\n\r\f\b\x1b") | {0x7F}


class BinaryFileError(ToolError):
    """The file holds binary data, which no tool here reads or rewrites as text."""


@dataclass(frozen=True)
class TextFile:
    """A text file as read, with what is needed to write it back the same way."""

    text: str  # decoded, BOM removed, line endings as on disk
    encoding: str  # "utf-8" or "latin-1"
    bom: bool
    mode: int
    size: int
    mtime_ns: int

    @property
    def crlf(self) -> bool:
        # Only a file whose every newline is CRLF is edited as LF and written back as
        # CRLF; a mixed file is edited as it is, so untouched lines keep their endings.
        newlines = self.text.count("\n")
        return newlines > 0 and newlines == self.text.count("\r\n")

    def working_text(self) -> str:
        """The text the model reads and edits: LF line endings for a CRLF file."""
        return self.text.replace("\r\n", "\n") if self.crlf else self.text


def _decode(raw: bytes) -> tuple[str, str, bool] | None:
    """(text, encoding, bom), or None for binary content."""
    if b"\x00" in raw[:BINARY_SNIFF_BYTES]:
        return None
    bom = raw.startswith(UTF8_BOM)
    try:
        return raw[len(UTF8_BOM) if bom else 0 :].decode("utf-8"), "utf-8", bom
    except UnicodeDecodeError:
        pass
    # latin-1 decodes any byte string, so "not UTF-8" alone does not make a file
    # text; many control bytes mean it is binary.
    sample = raw[:BINARY_SNIFF_BYTES]
    controls = sum(byte in _CONTROL_BYTES for byte in sample)
    if controls > len(sample) // 10:
        return None
    return raw.decode("latin-1"), "latin-1", False


def _not_found(path: Path, rel: str, workspace: Path) -> ToolError:
    folder = path.parent
    if not folder.is_dir():
        message = (f"file not found: {rel} (folder {display_path(folder, workspace)} "
                   f"does not exist)")
    else:
        message = f"file not found: {rel}"
    return ToolError(f"{message}; {where_instead(path, workspace)}")


def _stat_regular_file(path: Path, rel: str, workspace: Path) -> os.stat_result:
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise _not_found(path, rel, workspace) from None
    except OSError as error:
        raise ToolError(f"cannot read {rel}: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{rel} is a directory, not a file; use list_dir to see its entries")
    if not stat.S_ISREG(info.st_mode):
        # Reading a FIFO or a device would block or never end.
        raise ToolError(f"{rel} is not a regular file")
    return info


def load_text_file(path: Path, rel: str, workspace: Path) -> TextFile:
    """Read and decode a text file; ToolError for missing, directory or binary."""
    info = _stat_regular_file(path, rel, workspace)
    if info.st_size > MAX_FILE_BYTES:
        raise ToolError(
            f"{rel} is too large ({info.st_size:,} bytes); use a search tool or a shell "
            "command to look at parts of it"
        )
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ToolError(f"cannot read {rel}: {error.strerror}") from None
    decoded = _decode(raw)
    if decoded is None:
        raise BinaryFileError(f"{rel} is a binary file ({len(raw):,} bytes); only text files can be read")
    text, encoding, bom = decoded
    return TextFile(text, encoding, bom, info.st_mode, len(raw), info.st_mtime_ns)


def encode_like(text: str, original: TextFile | None) -> bytes:
    """Bytes for ``text`` (working form) in the original file's encoding, BOM and
    line endings; plain UTF-8 for a new file. May raise UnicodeEncodeError."""
    if original is None:
        return text.encode("utf-8")
    if original.crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode(original.encoding)
    return UTF8_BOM + data if original.bom else data


def write_atomic(path: Path, data: bytes, mode: int | None) -> int:
    """Write through a temp file in the same folder and os.replace, so a reader never
    sees half a file. Keeps ``mode`` when given. Returns the new mtime_ns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    # 0o666 and the umask, as for any new file (mkstemp would make it 0o600).
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, stat.S_IMODE(mode))
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return path.stat().st_mtime_ns


# ---------------------------------------------------------------- lines and diffs


def split_lines(text: str) -> list[str]:
    """Lines as an editor numbers them: split on LF only (str.splitlines also splits
    on form feeds and U+2028, which would shift line numbers), CR dropped."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline at the end of the last line, or an empty file
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def lines_keepends(text: str) -> list[str]:
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_diff(old: str, new: str, rel: str, created: bool = False) -> str:
    """A git-style unified diff (a/REL, b/REL; /dev/null for a new file)."""
    from_name = "/dev/null" if created else f"a/{rel}"
    hunks = difflib.unified_diff(lines_keepends(old), lines_keepends(new), from_name, f"b/{rel}")
    # A last line without newline needs git's marker, or the diff does not parse.
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in hunks
    )


def decode_text(raw: bytes) -> tuple[str, str, bool] | None:
    """(text, encoding, bom) of a file's bytes, or None for binary content."""
    return _decode(raw)


def encode_text(text: str, encoding: str, bom: bool) -> bytes:
    """Bytes for ``text`` as ``decode_text`` found it; UTF-8 when the encoding cannot
    hold it."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode("utf-8")
    return UTF8_BOM + data if bom else data

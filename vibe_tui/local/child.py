"""The local model's server process: llama.cpp's server from the ``xllamacpp`` package,
run by ``LocalServer`` as ``python -m vibe_tui.local.child --model GGUF ...``, with a chat
template (``local_template.jinja``) under which llama.cpp returns the model's tool calls
as native ``tool_calls``. Not a user command: the app starts it and it dies with the app.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

from vibe_tui.local.catalogue import CONTEXT_SIZE
from vibe_tui.local.server import API_KEY_ENV, default_threads

TEMPLATE_PATH = Path(__file__).with_name("local_template.jinja")


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
          parent_pid: int | None, prefix_dir: Path | None = None) -> int:
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
    if prefix_dir is not None:  # the slot save/restore endpoints, files only in there
        prefix_dir.mkdir(parents=True, exist_ok=True)
        params.slot_save_path = f"{prefix_dir}{os.sep}"
        params.endpoint_slots = True
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vibe_tui.local.child",
                                     description="serve a GGUF file (the app's child process)")
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--alias", default="local")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ctx-size", type=int, default=CONTEXT_SIZE)
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--parent-pid", type=int, default=None)
    parser.add_argument("--prefix-dir", type=Path, default=None,
                        help="where prompt prefixes may be saved and restored")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return serve(args.model, alias=args.alias, port=args.port, ctx_size=args.ctx_size,
                 threads=args.threads, parent_pid=args.parent_pid, prefix_dir=args.prefix_dir)


if __name__ == "__main__":
    sys.exit(main())

import os


def outbox_dir() -> str:
    return os.environ["RELAY_OUTBOX_DIR"]


def file_name(sequence: int) -> str:
    return f"{sequence:08d}.msg"

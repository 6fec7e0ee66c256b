from os import getenv

from relay.config import RETRY_LIMIT


def retry_limit() -> int:
    value = getenv("RELAY_MAX_RETRIES")
    return int(value) if value else RETRY_LIMIT

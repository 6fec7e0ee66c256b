import os

from relay.config import BATCH_SIZE


def intake_url() -> str:
    return os.environ.get("RELAY_INTAKE_URL", "amqp://localhost/intake")


def batches(messages: list[str]) -> list[list[str]]:
    return [messages[i:i + BATCH_SIZE] for i in range(0, len(messages), BATCH_SIZE)]

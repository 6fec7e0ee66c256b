"""Defaults for every stage; a stage may read its own settings from the environment."""

BATCH_SIZE = 50
RETRY_LIMIT = 3

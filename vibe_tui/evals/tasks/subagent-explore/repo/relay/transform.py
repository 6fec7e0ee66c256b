import json


def to_record(message: str) -> dict:
    return {"body": message.strip(), "length": len(message)}


def encode(record: dict) -> bytes:
    return json.dumps(record, sort_keys=True).encode()

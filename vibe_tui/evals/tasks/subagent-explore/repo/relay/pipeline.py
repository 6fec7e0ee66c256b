from relay import filters, intake, metrics, transform


def run(messages: list[str]) -> list[bytes]:
    out = []
    for batch in intake.batches(messages):
        for message in batch:
            metrics.seen("intake")
            if filters.allowed(message):
                out.append(transform.encode(transform.to_record(message)))
    return out

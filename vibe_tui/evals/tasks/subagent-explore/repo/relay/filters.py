BLOCKED_WORDS = {"spam", "phish"}


def allowed(message: str) -> bool:
    return not any(word in message.lower() for word in BLOCKED_WORDS)

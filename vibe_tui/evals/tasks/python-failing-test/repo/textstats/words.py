"""Word statistics for plain text."""


def count_words(text: str) -> int:
    """How many words: runs of characters between whitespace."""
    return len([word for word in text.split(" ") if word])


def longest_word(text: str) -> str:
    words = text.split()
    return max(words, key=len) if words else ""

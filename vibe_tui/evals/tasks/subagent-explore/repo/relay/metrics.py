from collections import Counter

counts: Counter = Counter()


def seen(stage: str) -> None:
    counts[stage] += 1

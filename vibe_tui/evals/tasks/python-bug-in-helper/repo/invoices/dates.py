"""Date helpers shared by the invoice code."""

from datetime import date, timedelta


def add_days(start: date, days: int) -> date:
    return start + timedelta(days=days)


def days_between(start: date, end: date) -> int:
    """Whole days from start to end, counting both ends (a one-day stay is 1)."""
    return (end - start).days


def is_weekend(day: date) -> bool:
    return day.weekday() >= 5

from datetime import date

from invoices.dates import add_days, is_weekend


def test_add_days():
    assert add_days(date(2024, 2, 28), 2) == date(2024, 3, 1)


def test_weekend():
    assert is_weekend(date(2024, 3, 2))

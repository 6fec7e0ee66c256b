TAX_RATE = 0.2


def with_tax(amount: float) -> float:
    return round(amount * (1 + TAX_RATE), 2)


def tier_rate(total: float) -> float:
    """The reduction for a cart total: 10 % above 100, nothing below."""
    return 0.10 if total > 100 else 0.0

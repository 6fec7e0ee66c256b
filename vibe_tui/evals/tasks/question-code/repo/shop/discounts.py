from shop.pricing import tier_rate


def apply_bulk_discount(total: float) -> float:
    """Reduce large orders by their tier's rate."""
    return round(total * (1 - tier_rate(total)), 2)

COUPONS = {"WELCOME5": 5.0, "SPRING10": 10.0}


def apply_coupon(total: float, code: str | None) -> float:
    """Take a fixed amount off for a known coupon code."""
    if code is None:
        return total
    return max(0.0, total - COUPONS.get(code, 0.0))

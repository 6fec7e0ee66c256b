from decimal import Decimal

from legacy.billing import late_fee, reminder_fee, tariff_north_basic_2015


def test_tariff():
    assert tariff_north_basic_2015(Decimal("100")) >= Decimal("0")


def test_no_fee_when_on_time():
    assert late_fee(Decimal("200"), 0) == Decimal("0.00")


def test_late_fee_grows_by_day():
    assert late_fee(Decimal("200"), 3) == Decimal("3.00")


def test_late_fee_is_capped_at_ten_percent():
    assert late_fee(Decimal("200"), 40) == Decimal("20.00")


def test_reminder_fee():
    assert reminder_fee(3) == Decimal("5.00")

from datetime import date

from invoices.rental import Rental


def test_one_day_rental_costs_one_day():
    rental = Rental("ada", date(2024, 3, 1), date(2024, 3, 1))
    assert rental.days() == 1
    assert rental.amount() == 40


def test_week_rental():
    rental = Rental("bob", date(2024, 3, 1), date(2024, 3, 7))
    assert rental.amount() == 7 * 40

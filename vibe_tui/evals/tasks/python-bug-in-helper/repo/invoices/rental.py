"""Rental invoices: a daily rate times the days rented."""

from dataclasses import dataclass
from datetime import date

from invoices.dates import days_between

DAILY_RATE = 40


@dataclass
class Rental:
    customer: str
    start: date
    end: date

    def days(self) -> int:
        return days_between(self.start, self.end)

    def amount(self) -> int:
        return self.days() * DAILY_RATE

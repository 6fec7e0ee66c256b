import math

from geometry.report import describe, total_area
from geometry.shapes import calc_area


def test_rect_area():
    assert calc_area({"kind": "rect", "w": 2, "h": 3}) == 6


def test_circle_area():
    assert math.isclose(calc_area({"kind": "circle", "r": 1}), math.pi)


def test_total_area():
    assert total_area([{"kind": "rect", "w": 1, "h": 1}, {"kind": "rect", "w": 2, "h": 2}]) == 5


def test_describe():
    assert describe({"kind": "rect", "w": 1, "h": 2}) == "rect: area 2.00, perimeter 6.00"

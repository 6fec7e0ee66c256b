"""Areas and perimeters of simple shapes given as dicts: {"kind": ..., sizes}."""

import math


def calc_area(shape: dict) -> float:
    kind = shape["kind"]
    if kind == "rect":
        return shape["w"] * shape["h"]
    if kind == "circle":
        return math.pi * shape["r"] ** 2
    raise ValueError(f"unknown shape: {kind}")


def perimeter(shape: dict) -> float:
    kind = shape["kind"]
    if kind == "rect":
        return 2 * (shape["w"] + shape["h"])
    if kind == "circle":
        return 2 * math.pi * shape["r"]
    raise ValueError(f"unknown shape: {kind}")

from geometry.shapes import calc_area, perimeter


def describe(shape: dict) -> str:
    return f"{shape['kind']}: area {calc_area(shape):.2f}, perimeter {perimeter(shape):.2f}"


def total_area(shapes: list[dict]) -> float:
    return sum(calc_area(shape) for shape in shapes)

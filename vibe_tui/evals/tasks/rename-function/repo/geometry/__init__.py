from geometry.shapes import calc_area, perimeter

__all__ = ["calc_area", "perimeter"]

import json
import sys

from geometry import calc_area


def main() -> None:
    shapes = json.load(sys.stdin)
    for shape in shapes:
        print(round(calc_area(shape), 3))


if __name__ == "__main__":
    main()

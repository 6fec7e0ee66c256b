"""data/catalog.json loads and holds exactly the data it was meant to."""

import json
import sys

EXPECTED = {
    "currency": "EUR",
    "updated": "2024-05-02",
    "products": [
        {"sku": "A-100", "name": "Desk lamp", "price": 39.90, "tags": ["light", "office"]},
        {"sku": "A-101", "name": "Floor lamp", "price": 89.00, "tags": ["light"]},
        {"sku": "B-200", "name": "Office chair", "price": 149.50, "tags": ["office", "seat"]},
        {"sku": "B-201", "name": "Stool", "price": 35.00, "tags": ["seat"]},
    ],
}
try:
    with open("data/catalog.json", encoding="utf-8") as handle:
        catalog = json.load(handle)
except (OSError, json.JSONDecodeError) as exc:
    sys.exit(f"data/catalog.json does not load: {exc}")
if catalog != EXPECTED:
    sys.exit(f"the catalogue's data changed:\n{json.dumps(catalog, indent=1)}")
print("ok")

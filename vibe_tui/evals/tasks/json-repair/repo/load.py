"""Print the catalogue: python load.py"""

import json

with open("data/catalog.json", encoding="utf-8") as handle:
    catalog = json.load(handle)

for product in catalog["products"]:
    print(f"{product['sku']:<8} {product['name']:<20} {product['price']:>8.2f}")
print(f"{len(catalog['products'])} products, currency {catalog['currency']}")

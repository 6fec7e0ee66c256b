from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    price: float
    quantity: int = 1


@dataclass
class Cart:
    items: list[Item] = field(default_factory=list)
    coupon: str | None = None

    def add(self, item: Item) -> None:
        self.items.append(item)

    def subtotal(self) -> float:
        return sum(item.price * item.quantity for item in self.items)

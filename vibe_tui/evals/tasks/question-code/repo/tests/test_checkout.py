from shop.cart import Cart, Item
from shop.checkout import amount_due


def test_small_cart_pays_tax_only():
    cart = Cart([Item("pen", 2.0, 5)])
    assert amount_due(cart) == 12.0

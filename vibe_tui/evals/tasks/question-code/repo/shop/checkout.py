from shop.cart import Cart
from shop.coupons import apply_coupon
from shop.discounts import apply_bulk_discount
from shop.pricing import with_tax


def amount_due(cart: Cart) -> float:
    total = cart.subtotal()
    total = apply_bulk_discount(total)
    total = apply_coupon(total, cart.coupon)
    return with_tax(total)

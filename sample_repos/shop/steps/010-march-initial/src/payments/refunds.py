"""How much a cancelled order gets back.

Full refund within the grace period; after it, a restocking fee of 5% of the goods is kept.
The shipping fee is refunded only if the order has not been handed to the carrier.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

from common.money import Money
from orders.models import Order, OrderStatus

GRACE_PERIOD = timedelta(hours=2)
RESTOCKING_FEE_RATE = Decimal("0.05")


def round_half_up(value: Decimal) -> int:
    """Round a cent amount to whole cents, halves away from zero (what accountants expect)."""
    return int(value.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def restocking_fee(order: Order) -> Money:
    goods = order.subtotal()
    return Money(round_half_up(Decimal(goods.cents) * RESTOCKING_FEE_RATE), goods.currency)


def within_grace_period(order: Order, now: datetime) -> bool:
    return now - order.created_at <= GRACE_PERIOD


def compute_refund(order: Order, now: datetime) -> Money:
    """The amount to refund if `order` is cancelled at `now`."""
    if order.status is OrderStatus.PENDING:
        return Money(0, order.total().currency)
    goods = order.subtotal()
    if not within_grace_period(order, now):
        goods = Money(goods.cents - restocking_fee(order).cents, goods.currency)
    if order.status is OrderStatus.SHIPPED:
        return goods
    return goods + order.shipping_fee

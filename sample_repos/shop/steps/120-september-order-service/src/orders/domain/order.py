"""Order rules."""

from __future__ import annotations

from orders.errors import OrderNotCancellable
from orders.models import Order, OrderStatus

CANCELLABLE = frozenset({OrderStatus.PENDING, OrderStatus.PAID})


def ensure_cancellable(order: Order) -> None:
    if order.status not in CANCELLABLE:
        raise OrderNotCancellable(order.id, order.status)


def is_paid(order: Order) -> bool:
    return order.payment_id is not None and order.status is not OrderStatus.PENDING

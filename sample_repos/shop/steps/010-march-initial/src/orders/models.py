"""The order aggregate as the rest of the service sees it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import Enum

from common.money import Money, zero


class OrderStatus(Enum):
    PENDING = "pending"
    PAID = "paid"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class LineItem:
    sku: str
    quantity: int
    unit_price: Money

    def total(self) -> Money:
        return self.unit_price.times(self.quantity)


@dataclass(frozen=True)
class Order:
    id: str
    customer_id: str
    customer_email: str
    items: tuple[LineItem, ...]
    status: OrderStatus
    created_at: datetime
    payment_id: str | None = None
    shipping_fee: Money = field(default_factory=zero)
    cancelled_at: datetime | None = None

    def subtotal(self) -> Money:
        total = zero(self.shipping_fee.currency)
        for item in self.items:
            total = total + item.total()
        return total

    def total(self) -> Money:
        return self.subtotal() + self.shipping_fee

    def with_status(self, status: OrderStatus, at: datetime | None = None) -> Order:
        cancelled_at = at if status is OrderStatus.CANCELLED else self.cancelled_at
        return replace(self, status=status, cancelled_at=cancelled_at)

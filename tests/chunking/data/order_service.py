"""Order service: placing, cancelling and refunding orders.

The service is the only writer of the orders table.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from decimal import Decimal

log = logging.getLogger(__name__)

MAX_RETRIES = 3

# Refund policy per payment method; read by the refund job.
REFUND_POLICY = {
    "card": {"days": 30, "partial": True},
    "invoice": {"days": 14, "partial": False},
}


class OrderError(Exception):
    """Raised when an order cannot change state."""


@dataclass
class Order:
    """An order as stored."""

    id: str
    total: Decimal
    status: str = "open"
    lines: list[str] = field(default_factory=list)

    @property
    def is_open(self) -> bool:
        return self.status == "open"


class OrderService:
    """Places and cancels orders; idempotent on retries."""

    default_reason = "customer request"

    def __init__(self, repo, payments):
        self.repo = repo
        self.payments = payments

    def cancel_order(self, order_id: str,
                     reason: str | None = None) -> Order:
        """Cancel an open order and release its payment hold.

        Cancelling an already cancelled order is a no-op.
        """
        order = self.repo.get(order_id)
        if order.status == "cancelled":
            return order
        if not order.is_open:
            raise OrderError(f"order {order_id} is {order.status}")

        def release(hold_id):
            """Release one payment hold."""
            self.payments.release(hold_id)

        for hold in self.payments.holds(order_id):
            release(hold)
        order.status = "cancelled"
        log.info("cancelled %s: %s", order_id, reason or self.default_reason)
        return self.repo.save(order)

    class Audit:
        """Audit trail of state changes."""

        def record(self, order, event):
            log.info("audit %s %s", order.id, event)

        class Entry:
            def method(self):
                return None


def outer(values):
    def inner(v):
        return v * 2

    return [inner(v) for v in values]


async def refund(order: Order, amount: Decimal) -> None:
    # Refunds go through the payment provider.
    await order.payments.refund(order.id, amount)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)

"""Order e-mails. Rendering is kept apart from sending so templates can be tested alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from common.money import Money, format_money
from orders.models import Order


@dataclass(frozen=True)
class EmailMessage:
    to: str
    subject: str
    body: str


class EmailTransport(Protocol):
    def send(self, message: EmailMessage) -> None: ...


class OutboxTransport:
    """Collects messages instead of sending them (local runs and tests)."""

    def __init__(self) -> None:
        self.sent: list[EmailMessage] = []

    def send(self, message: EmailMessage) -> None:
        self.sent.append(message)


def render_cancellation_email(order: Order, refunded: Money) -> EmailMessage:
    lines = [f"Your order {order.id} has been cancelled."]
    if refunded.is_zero():
        lines.append("Nothing was charged, so nothing is refunded.")
    else:
        lines.append(f"We are refunding {format_money(refunded)} to your original payment method.")
    return EmailMessage(order.customer_email, f"Order {order.id} cancelled", "\n".join(lines))


class EmailNotifier:
    def __init__(self, transport: EmailTransport) -> None:
        self._transport = transport

    def order_cancelled(self, order: Order, refunded: Money) -> None:
        self._transport.send(render_cancellation_email(order, refunded))

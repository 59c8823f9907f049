"""Cancellation text messages, for customers who gave a phone number at checkout."""

from __future__ import annotations

from common.money import Money, format_money
from orders.models import Order

SMS_LIMIT = 160


class SmsOutbox:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def send(self, phone: str, text: str) -> None:
        self.sent.append((phone, text[:SMS_LIMIT]))


def render_cancellation_sms(order: Order, refunded: Money) -> str:
    if refunded.is_zero():
        return f"Order {order.id} is cancelled."
    return f"Order {order.id} is cancelled; {format_money(refunded)} is on its way back to you."


class SmsNotifier:
    def __init__(self, outbox: SmsOutbox, phone_book: dict[str, str] | None = None) -> None:
        self._outbox = outbox
        self._phone_book = phone_book or {}

    def order_cancelled(self, order: Order, refunded: Money) -> None:
        phone = self._phone_book.get(order.customer_id)
        if phone:
            self._outbox.send(phone, render_cancellation_sms(order, refunded))


class FanOutNotifier:
    """Sends each notification through every channel; one failing channel does not stop the rest."""

    def __init__(self, channels: list) -> None:
        self._channels = channels

    def order_cancelled(self, order: Order, refunded: Money) -> None:
        for channel in self._channels:
            try:
                channel.order_cancelled(order, refunded)
            except Exception:  # noqa: BLE001 - a notification must never fail a cancellation
                continue

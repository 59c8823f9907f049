"""The payment provider behind one small interface.

`FakeGateway` is what the tests and the local setup use; the provider's SDK client implements
the same protocol in production.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Protocol

from common.money import Money


class PaymentDeclined(Exception):
    """The provider refused the charge; the customer must use another payment method."""


class PaymentGateway(Protocol):
    def charge(self, payment_token: str, amount: Money) -> str: ...

    def refund(self, payment_id: str, amount: Money, idempotency_key: str | None = None) -> str: ...


@dataclass
class Charge:
    payment_id: str
    amount: Money
    refunded: Money


class FakeGateway:
    """Keeps charges in memory and honours refund idempotency keys like the real provider."""

    DECLINED_TOKEN = "tok_declined"

    def __init__(self) -> None:
        self._charges: dict[str, Charge] = {}
        self._refunds_by_key: dict[str, str] = {}
        self._ids = itertools.count(1)

    def charge(self, payment_token: str, amount: Money) -> str:
        if payment_token == self.DECLINED_TOKEN:
            raise PaymentDeclined(payment_token)
        payment_id = f"pay_{next(self._ids):06d}"
        self._charges[payment_id] = Charge(payment_id, amount, Money(0, amount.currency))
        return payment_id

    def refund(self, payment_id: str, amount: Money, idempotency_key: str | None = None) -> str:
        if idempotency_key is not None and idempotency_key in self._refunds_by_key:
            return self._refunds_by_key[idempotency_key]
        charge = self._charges[payment_id]
        if (charge.refunded + amount).cents > charge.amount.cents:
            raise ValueError(f"refund exceeds charge {payment_id}")
        charge.refunded = charge.refunded + amount
        refund_id = f"re_{next(self._ids):06d}"
        if idempotency_key is not None:
            self._refunds_by_key[idempotency_key] = refund_id
        return refund_id

    def refunded(self, payment_id: str) -> Money:
        return self._charges[payment_id].refunded

"""Money as integer cents plus a currency, so rounding happens in exactly one place."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal


@dataclass(frozen=True)
class Money:
    cents: int
    currency: str = "EUR"

    def __add__(self, other: Money) -> Money:
        if other.currency != self.currency:
            raise ValueError(f"cannot add {other.currency} to {self.currency}")
        return Money(self.cents + other.cents, self.currency)

    def times(self, quantity: int) -> Money:
        return Money(self.cents * quantity, self.currency)

    def is_zero(self) -> bool:
        return self.cents == 0


def zero(currency: str = "EUR") -> Money:
    return Money(0, currency)


def format_money(amount: Money) -> str:
    """Format for customer-facing text, e.g. 'EUR 12.50'."""
    sign = "-" if amount.cents < 0 else ""
    whole, cents = divmod(abs(amount.cents), 100)
    return f"{sign}{amount.currency} {whole}.{cents:02d}"


def round_half_up(value: Decimal) -> int:
    """Round a cent amount to whole cents, halves away from zero (what accountants expect)."""
    return int(value.quantize(Decimal("1"), rounding=ROUND_HALF_UP))

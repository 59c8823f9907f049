"""Stock levels per SKU, with reservations taken when an order is placed."""

from __future__ import annotations

from collections import defaultdict

from orders.errors import OutOfStock


class StockLedger:
    def __init__(self, on_hand: dict[str, int] | None = None) -> None:
        self._on_hand: dict[str, int] = dict(on_hand or {})
        self._reserved: dict[str, int] = defaultdict(int)

    def available(self, sku: str) -> int:
        return self._on_hand.get(sku, 0) - self._reserved[sku]

    def reserve(self, sku: str, quantity: int) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        available = self.available(sku)
        if quantity > available:
            raise OutOfStock(sku, quantity, available)
        self._reserved[sku] += quantity

    def release(self, sku: str, quantity: int) -> None:
        self._reserved[sku] = max(0, self._reserved[sku] - quantity)

    def receive(self, sku: str, quantity: int) -> None:
        self._on_hand[sku] = self._on_hand.get(sku, 0) + quantity

"""Order storage with history: every save keeps the previous state, so support can see how an
order got where it is, and a stale write is refused instead of silently overwriting."""

from __future__ import annotations

from orders.models import Order, OrderStatus


class StaleOrder(Exception):
    """The order changed since the caller read it."""


class OrderRepository:
    def __init__(self) -> None:
        self._history: dict[str, list[Order]] = {}

    def get(self, order_id: str) -> Order | None:
        versions = self._history.get(order_id)
        return versions[-1] if versions else None

    def save(self, order: Order, expected_version: int | None = None) -> int:
        """Store `order` as its newest state and return its version number (1-based)."""
        versions = self._history.setdefault(order.id, [])
        if expected_version is not None and expected_version != len(versions):
            raise StaleOrder(f"{order.id}: expected version {expected_version}, found {len(versions)}")
        versions.append(order)
        return len(versions)

    def history(self, order_id: str) -> list[Order]:
        return list(self._history.get(order_id, []))

    def list_by_customer(self, customer_id: str) -> list[Order]:
        found = [order for order in self._latest() if order.customer_id == customer_id]
        return sorted(found, key=lambda order: order.created_at)

    def list_open(self) -> list[Order]:
        closed = {OrderStatus.CANCELLED, OrderStatus.DELIVERED}
        return [order for order in self._latest() if order.status not in closed]

    def _latest(self) -> list[Order]:
        return [versions[-1] for versions in self._history.values() if versions]

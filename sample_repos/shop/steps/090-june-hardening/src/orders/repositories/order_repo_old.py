"""Backup of the in-memory order repository before history tracking (kept until the migration is verified)."""

from __future__ import annotations

from orders.models import Order, OrderStatus


class OrderRepoOld:
    def __init__(self) -> None:
        self._orders: dict[str, Order] = {}

    def get(self, order_id: str) -> Order | None:
        return self._orders.get(order_id)

    def save(self, order: Order) -> None:
        self._orders[order.id] = order

    def list_by_customer(self, customer_id: str) -> list[Order]:
        found = [order for order in self._orders.values() if order.customer_id == customer_id]
        return sorted(found, key=lambda order: order.created_at)

    def list_open(self) -> list[Order]:
        closed = {OrderStatus.CANCELLED, OrderStatus.DELIVERED}
        return [order for order in self._orders.values() if order.status not in closed]

"""Errors the order handlers raise; the HTTP layer maps each one to a status code."""

from __future__ import annotations


class OrderError(Exception):
    """Base class for order failures the caller can act on."""


class OrderNotFound(OrderError):
    def __init__(self, order_id: str) -> None:
        super().__init__(f"order {order_id} not found")
        self.order_id = order_id


class OrderNotCancellable(OrderError):
    def __init__(self, order_id: str, status: object) -> None:
        super().__init__(f"order {order_id} cannot be cancelled in status {status}")
        self.order_id = order_id
        self.status = status


class OutOfStock(OrderError):
    def __init__(self, sku: str, wanted: int, available: int) -> None:
        super().__init__(f"{sku}: wanted {wanted}, only {available} available")
        self.sku = sku


class IdempotencyKeyConflict(OrderError):
    """The same idempotency key was sent for a different order: a client bug, never a retry."""

    def __init__(self, key: str, first_order_id: str, order_id: str) -> None:
        super().__init__(f"idempotency key {key} was used for {first_order_id}, not {order_id}")
        self.key = key

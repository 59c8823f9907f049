"""Create an order: reserve stock, charge the customer, record and announce the order."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace

from audit.events import AuditEvent, AuditLog
from common.clock import Clock
from common.money import Money
from inventory.stock import StockLedger
from orders.models import LineItem, Order, OrderStatus
from orders.repositories.order_repo import OrderRepository
from payments.gateway import PaymentGateway


@dataclass(frozen=True)
class CreateOrderRequest:
    customer_id: str
    customer_email: str
    items: tuple[LineItem, ...]
    payment_token: str
    shipping_fee: Money


class CreateOrderHandler:
    def __init__(
        self,
        orders: OrderRepository,
        payments: PaymentGateway,
        stock: StockLedger,
        audit: AuditLog,
        clock: Clock,
    ) -> None:
        self._orders = orders
        self._payments = payments
        self._stock = stock
        self._audit = audit
        self._clock = clock

    def handle(self, request: CreateOrderRequest) -> Order:
        order_id = f"ord_{uuid.uuid4().hex[:12]}"
        reserved = self._reserve_all(request.items)
        order = Order(
            id=order_id,
            customer_id=request.customer_id,
            customer_email=request.customer_email,
            items=request.items,
            status=OrderStatus.PENDING,
            created_at=self._clock.now(),
            shipping_fee=request.shipping_fee,
        )
        try:
            payment_id = self._payments.charge(request.payment_token, order.total())
        except Exception:
            self._release_all(reserved)
            raise
        order = replace(order, payment_id=payment_id, status=OrderStatus.PAID)
        self._orders.save(order)
        self._audit.record(AuditEvent.create("order.created", order.id, self._clock.now()))
        return order

    def _reserve_all(self, items: tuple[LineItem, ...]) -> list[LineItem]:
        reserved: list[LineItem] = []
        try:
            for item in items:
                self._stock.reserve(item.sku, item.quantity)
                reserved.append(item)
        except Exception:
            self._release_all(reserved)
            raise
        return reserved

    def _release_all(self, items: list[LineItem]) -> None:
        for item in items:
            self._stock.release(item.sku, item.quantity)

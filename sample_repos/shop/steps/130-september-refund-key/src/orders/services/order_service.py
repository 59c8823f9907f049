"""Order use cases."""

from __future__ import annotations

from audit.events import AuditEvent, AuditLog
from common.clock import Clock
from inventory.stock import StockLedger
from orders.domain.order import ensure_cancellable, is_paid
from orders.errors import OrderNotFound
from orders.models import Order, OrderStatus
from orders.repositories.order_repo import OrderRepository
from payments.gateway import PaymentGateway
from payments.refunds import compute_refund


class OrderService:
    def __init__(
        self,
        orders: OrderRepository,
        payments: PaymentGateway,
        stock: StockLedger,
        audit: AuditLog,
        notifier,
        clock: Clock,
    ) -> None:
        self._orders = orders
        self._payments = payments
        self._stock = stock
        self._audit = audit
        self._notifier = notifier
        self._clock = clock

    def get_order(self, order_id: str) -> Order:
        order = self._orders.get(order_id)
        if order is None:
            raise OrderNotFound(order_id)
        return order

    def cancel_order(
        self, order_id: str, reason: str = "customer_request", actor: str = "customer"
    ) -> Order:
        order = self.get_order(order_id)
        if order.status == OrderStatus.CANCELLED:
            return order
        ensure_cancellable(order)
        now = self._clock.now()
        refund = compute_refund(order, now)
        if is_paid(order) and not refund.is_zero():
            self._payments.refund(order.payment_id, refund, idempotency_key=f"cancel-{order.id}")
        for item in order.items:
            self._stock.release(item.sku, item.quantity)
        cancelled = order.with_status(OrderStatus.CANCELLED, now)
        self._orders.save(cancelled)
        self._audit.record(
            AuditEvent.create("order.cancelled", order.id, now, actor=actor, details={"reason": reason})
        )
        self._notifier.order_cancelled(cancelled, refund)
        return cancelled

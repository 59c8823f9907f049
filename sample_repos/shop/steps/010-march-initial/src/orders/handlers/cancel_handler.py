"""Cancel an order: the handler behind POST /orders/{order_id}/cancel.

Cancellation requests are retried all the time: mobile clients on flaky networks resend them,
the support console double-submits, and the message bus redelivers. Refunding twice is the
expensive failure, so this handler is idempotent: a repeated request returns the previous
result instead of doing the work again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from audit.events import AuditEvent, AuditLog
from common.clock import Clock
from common.money import Money
from inventory.stock import StockLedger
from orders.errors import OrderNotCancellable, OrderNotFound
from orders.idempotency import IdempotencyStore
from orders.models import Order, OrderStatus
from orders.repositories.order_repo import OrderRepository
from payments.gateway import PaymentGateway
from payments.refunds import compute_refund

# Orders that have left the warehouse go through returns, not cancellation.
CANCELLABLE = frozenset({OrderStatus.PENDING, OrderStatus.PAID})


@dataclass(frozen=True)
class CancelOrderRequest:
    order_id: str
    idempotency_key: str
    reason: str = "customer_request"
    requested_by: str = "customer"


@dataclass(frozen=True)
class CancelOrderResult:
    order_id: str
    status: str
    refunded: Money
    replayed: bool = False


class CancelOrderHandler:
    """Cancels an order at most once per idempotency key, and refunds it at most once.

    The idempotency check runs before anything else:

    1. Look up the idempotency key. If we have seen it, a repeated request returns the
       previous result unchanged (marked `replayed`): no second refund, no second stock
       release, no second e-mail, no second audit event.
    2. If the key is new but the order is already cancelled (another request with another key
       got there first), answer with the current state and refund nothing.
    3. Otherwise cancel, refund and release stock, and store the result under the idempotency
       key *before* notifying the customer, so that a crash after the refund cannot turn the
       client's retry into a second refund.

    Audit events are deduplicated as well: each event carries the idempotency key as its
    dedup key, and the audit log drops an event whose dedup key it has already recorded.
    """

    def __init__(
        self,
        orders: OrderRepository,
        payments: PaymentGateway,
        stock: StockLedger,
        idempotency: IdempotencyStore,
        audit: AuditLog,
        notifier,
        clock: Clock,
    ) -> None:
        self._orders = orders
        self._payments = payments
        self._stock = stock
        self._idempotency = idempotency
        self._audit = audit
        self._notifier = notifier
        self._clock = clock

    def handle(self, request: CancelOrderRequest) -> CancelOrderResult:
        # Idempotency check: a repeated request returns the previous result, untouched.
        previous = self._idempotency.get(request.idempotency_key)
        if previous is not None:
            return replace(previous, replayed=True)

        order = self._orders.get(request.order_id)
        if order is None:
            raise OrderNotFound(request.order_id)

        # Cancelled already, under a different key: report it, never refund twice.
        if order.status is OrderStatus.CANCELLED:
            result = CancelOrderResult(order.id, order.status.value, Money(0, order.total().currency))
            self._idempotency.put(request.idempotency_key, result)
            return result

        if order.status not in CANCELLABLE:
            raise OrderNotCancellable(order.id, order.status)

        result = self._cancel(order, request)
        # Store the result before any side effect that may fail, so a retry after a crash
        # from here on replays this result instead of refunding again.
        self._idempotency.put(request.idempotency_key, result)
        self._notifier.order_cancelled(order, result.refunded)
        return result

    def _cancel(self, order: Order, request: CancelOrderRequest) -> CancelOrderResult:
        now = self._clock.now()
        refund = compute_refund(order, now)
        if order.payment_id is not None and not refund.is_zero():
            # The gateway is idempotent on its side too: we pass our key along, so even a
            # refund that timed out on our side is not executed twice by the provider.
            self._payments.refund(order.payment_id, refund, idempotency_key=request.idempotency_key)
        for item in order.items:
            self._stock.release(item.sku, item.quantity)
        self._orders.save(order.with_status(OrderStatus.CANCELLED, now))
        # The idempotency key doubles as the audit dedup key: one event per cancellation.
        self._audit.record(
            AuditEvent.create(
                "order.cancelled",
                order.id,
                now,
                actor=request.requested_by,
                details={"reason": request.reason, "refunded_cents": refund.cents},
                dedup_key=request.idempotency_key,
            )
        )
        return CancelOrderResult(order.id, OrderStatus.CANCELLED.value, refund)

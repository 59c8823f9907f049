"""Wires the service together; the web layer and the tests start from `build_app`."""

from __future__ import annotations

from dataclasses import dataclass

from audit.events import AuditLog
from common.clock import Clock, SystemClock
from inventory.stock import StockLedger
from notifications.mailer import EmailNotifier, OutboxTransport
from notifications.sms import FanOutNotifier, SmsNotifier, SmsOutbox
from orders.handlers.cancel_handler import CancelOrderHandler
from orders.handlers.create_handler import CreateOrderHandler
from orders.idempotency import IdempotencyStore
from orders.repositories.order_repo import OrderRepository
from payments.gateway import FakeGateway


@dataclass
class App:
    orders: OrderRepository
    payments: FakeGateway
    stock: StockLedger
    audit: AuditLog
    outbox: OutboxTransport
    create_order: CreateOrderHandler
    cancel_order: CancelOrderHandler


def build_app(clock: Clock | None = None, on_hand: dict[str, int] | None = None) -> App:
    clock = clock or SystemClock()
    orders = OrderRepository()
    payments = FakeGateway()
    stock = StockLedger(on_hand)
    audit = AuditLog()
    outbox = OutboxTransport()
    notifier = FanOutNotifier([EmailNotifier(outbox), SmsNotifier(SmsOutbox())])
    idempotency = IdempotencyStore(clock)
    return App(
        orders=orders,
        payments=payments,
        stock=stock,
        audit=audit,
        outbox=outbox,
        create_order=CreateOrderHandler(orders, payments, stock, audit, clock),
        cancel_order=CancelOrderHandler(orders, payments, stock, idempotency, audit, notifier, clock),
    )

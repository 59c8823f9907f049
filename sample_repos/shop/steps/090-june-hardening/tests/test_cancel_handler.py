from app import build_app
from fixtures.orders_fixture import fixed_clock, paid_order_in
from orders.handlers.cancel_handler import CancelOrderRequest


def test_cancel_refunds_and_releases_stock():
    app = build_app(clock=fixed_clock())
    order = paid_order_in(app)
    result = app.cancel_order.handle(CancelOrderRequest(order.id, "key-1"))
    assert result.status == "cancelled"
    assert app.payments.refunded(order.payment_id) == order.total()
    assert app.stock.available("sku-kettle") == 1


def test_repeated_request_returns_previous_result():
    app = build_app(clock=fixed_clock())
    order = paid_order_in(app)
    first = app.cancel_order.handle(CancelOrderRequest(order.id, "key-1"))
    second = app.cancel_order.handle(CancelOrderRequest(order.id, "key-1"))
    assert second.replayed and second.refunded == first.refunded
    assert app.payments.refunded(order.payment_id) == order.total()
    assert len(app.outbox.sent) == 1
    assert len(app.audit.for_subject(order.id)) == 1

from app import build_app
from fixtures.orders_fixture import fixed_clock, paid_order_in


def test_cancel_refunds_and_releases_stock():
    app = build_app(clock=fixed_clock())
    order = paid_order_in(app)
    cancelled = app.service.cancel_order(order.id)
    assert cancelled.status.value == "cancelled"
    assert app.payments.refunded(order.payment_id) == order.total()
    assert app.stock.available("sku-kettle") == 1


def test_cancelling_twice_refunds_once():
    app = build_app(clock=fixed_clock())
    order = paid_order_in(app)
    app.service.cancel_order(order.id)
    app.service.cancel_order(order.id)
    assert app.payments.refunded(order.payment_id) == order.total()
    assert len(app.outbox.sent) == 1

from datetime import timedelta

from common.money import Money
from fixtures.orders_fixture import T0, make_order
from orders.models import OrderStatus
from payments.refunds import compute_refund, restocking_fee


def test_full_refund_within_grace_period():
    order = make_order()
    assert compute_refund(order, T0 + timedelta(minutes=30)) == order.total()


def test_restocking_fee_after_grace_period():
    order = make_order()
    refund = compute_refund(order, T0 + timedelta(days=1))
    assert refund == Money(order.total().cents - restocking_fee(order).cents)


def test_pending_orders_refund_nothing():
    assert compute_refund(make_order(OrderStatus.PENDING), T0).is_zero()


def test_shipped_orders_pay_the_restocking_fee_even_within_grace_period():
    order = make_order(OrderStatus.SHIPPED)
    refund = compute_refund(order, T0 + timedelta(minutes=5))
    assert refund == Money(order.subtotal().cents - restocking_fee(order).cents)

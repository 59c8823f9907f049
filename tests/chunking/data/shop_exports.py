from shop.orders import Order as Order  # noqa
from shop.orders import OrderService as OrderService  # noqa

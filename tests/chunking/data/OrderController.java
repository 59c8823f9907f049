package com.shop.orders;

import java.util.List;
import java.util.Optional;

/**
 * REST controller for orders.
 *
 * Delegates to {@link OrderService}.
 */
@RestController
public class OrderController {
    private final OrderService service;

    public OrderController(OrderService service) {
        this.service = service;
    }

    /** Cancel an order by id. */
    @PostMapping("/orders/{id}/cancel")
    public Order cancelOrder(@PathVariable String id,
                             @RequestParam Optional<String> reason) {
        return service.cancelOrder(id, reason.orElse(null));
    }

    // Lists open orders.
    public List<Order> openOrders() {
        Comparator<Order> byId = new Comparator<Order>() {
            @Override
            public int compare(Order a, Order b) {
                return a.id().compareTo(b.id());
            }
        };
        return service.open().stream().sorted(byId).toList();
    }

    /** Order status values. */
    public enum Status {
        OPEN, CANCELLED;

        public boolean isFinal() {
            return this == CANCELLED;
        }
    }

    static class Outer {
        static class Inner {
            void method() {}
        }
    }
}

interface OrderService {
    Order cancelOrder(String id, String reason);

    List<Order> open();
}

record Order(String id, long total) {
    Order {
        if (total < 0) throw new IllegalArgumentException("total");
    }
}

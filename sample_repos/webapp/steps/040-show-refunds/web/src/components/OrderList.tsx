import { useEffect, useState } from "react";

import { formatDate } from "../dates";
import { formatPrice, statusLabel } from "../format";
import type { OrderStore } from "../store";
import type { Order } from "../types";

interface OrderListProps {
  store: OrderStore;
}

export function OrderList({ store }: OrderListProps) {
  const [orders, setOrders] = useState<Order[]>(store.all);

  useEffect(() => store.events.on("changed", setOrders), [store]);

  if (orders.length === 0) {
    return <p className="empty">No orders yet.</p>;
  }
  return (
    <table className="orders">
      <tbody>
        {orders.map((order) => (
          <tr key={order.id}>
            <td>{order.id}</td>
            <td>{formatDate(order.createdAt)}</td>
            <td>{formatPrice(order.totalCents, order.currency)}</td>
            <td>{statusLabel(order.status)}</td>
            <td>{order.refundedCents > 0 && `refunded ${formatPrice(order.refundedCents, order.currency)}`}</td>
            <td>
              {(order.status === "pending" || order.status === "paid") && (
                <button onClick={() => store.cancel(order.id)}>Cancel</button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

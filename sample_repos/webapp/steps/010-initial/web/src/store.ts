import { Emitter } from "../vendor/tiny-emitter";
import { cancelOrder, fetchOrders } from "./api";
import type { Order } from "./types";

type StoreEvents = { changed: Order[]; failed: Error };

export class OrderStore {
  readonly events = new Emitter<StoreEvents>();
  private orders: Order[] = [];

  constructor(private readonly customerId: string) {}

  get all(): Order[] {
    return this.orders;
  }

  async load(): Promise<void> {
    try {
      this.orders = await fetchOrders(this.customerId);
      this.events.emit("changed", this.orders);
    } catch (error) {
      this.events.emit("failed", error as Error);
    }
  }

  async cancel(orderId: string): Promise<void> {
    const key = `cancel-${orderId}-${crypto.randomUUID()}`;
    const updated = await cancelOrder(orderId, key);
    this.orders = this.orders.map((order) => (order.id === updated.id ? updated : order));
    this.events.emit("changed", this.orders);
  }
}

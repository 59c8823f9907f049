export type OrderStatus = "pending" | "paid" | "shipped" | "delivered" | "cancelled" | "refunded";

export interface Order {
  id: string;
  status: OrderStatus;
  totalCents: number;
  refundedCents: number;
  currency: string;
  createdAt: string;
}

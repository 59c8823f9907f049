export type OrderStatus = "pending" | "paid" | "shipped" | "delivered" | "cancelled";

export interface Order {
  id: string;
  status: OrderStatus;
  totalCents: number;
  refundedCents: number;
  currency: string;
  createdAt: string;
}

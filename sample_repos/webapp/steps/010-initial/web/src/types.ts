export type OrderStatus = "pending" | "paid" | "shipped" | "delivered" | "cancelled";

export interface Order {
  id: string;
  status: OrderStatus;
  totalCents: number;
  currency: string;
  createdAt: string;
}

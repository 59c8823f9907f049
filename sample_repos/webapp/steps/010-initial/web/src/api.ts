import type { Order } from "./types";

export class ApiError extends Error {
  constructor(public readonly status: number, message: string) {
    super(message);
  }
}

const BASE_URL = "/api";

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${BASE_URL}${path}`, {
    ...init,
    headers: { Accept: "application/json", ...(init.headers ?? {}) },
  });
  if (!response.ok) {
    throw new ApiError(response.status, await response.text());
  }
  return (await response.json()) as T;
}

export function fetchOrders(customerId: string): Promise<Order[]> {
  return request<Order[]>(`/orders?customer=${encodeURIComponent(customerId)}`);
}

export function cancelOrder(orderId: string, idempotencyKey: string): Promise<Order> {
  return request<Order>(`/orders/${encodeURIComponent(orderId)}/cancel`, {
    method: "POST",
    headers: { "Idempotency-Key": idempotencyKey },
  });
}

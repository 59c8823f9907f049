import { Cart } from "./cart";
import type { Money } from "./money";

/** A checkout step identifier. */
export type StepId = "address" | "payment" | "review";

export enum Step {
  Address = "address",
  Payment = "payment",
}

/** Anything that can pay for a cart. */
export interface PaymentProvider {
  /** Charge the amount; resolves to a receipt id. */
  charge(amount: Money): Promise<string>;
  readonly name: string;
}

export const RETRY_LIMIT = 3;

export abstract class Checkout<T extends Cart> {
  protected steps: StepId[] = ["address", "payment", "review"];

  constructor(private readonly provider: PaymentProvider) {}

  /** Pay for the cart and return the receipt id. */
  async pay(cart: T): Promise<string> {
    const receipt = await this.provider.charge(cart.total);
    return receipt;
  }

  abstract validate(cart: T): boolean;
}

export namespace Checkout {
  export function create(provider: PaymentProvider): string {
    return provider.name;
  }
}

export const formatReceipt = (id: string): string => `receipt ${id}`;

declare function trackCheckout(id: string): void;

// Shopping cart helpers for the storefront.
import { formatPrice } from "./money.js";
import api from "./api";

const TAX_RATE = 0.2;

export const DEFAULTS = {
  currency: "EUR",
  maxItems: 99,
};

/**
 * Total price of a cart, tax included.
 * @param {Array} items
 */
export function cartTotal(items) {
  const net = items.reduce((sum, item) => sum + item.price * item.qty, 0);
  return net * (1 + TAX_RATE);
}

export const addItem = (cart, item) => {
  return { ...cart, items: [...cart.items, item] };
};

function* itemIds(cart) {
  for (const item of cart.items) yield item.id;
}

/** A cart bound to one user. */
export default class Cart {
  #items = [];

  constructor(user) {
    this.user = user;
  }

  // Adds one item; merges quantities.
  add(item) {
    this.#items.push(item);
    return this;
  }

  get size() {
    return this.#items.length;
  }

  static empty(user) {
    return new Cart(user);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  api.track("cart-loaded");
});

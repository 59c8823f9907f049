defmodule Shop.Cart do
  @moduledoc """
  A customer's cart: items, quantities and the running total.
  """
  alias Shop.{Item, Money}
  require Logger

  @behaviour Shop.Pricing
  @max_items 99

  defstruct [
    :owner,
    items: [],
    total: Money.zero()
  ]

  @type t :: %__MODULE__{owner: String.t(), items: [Item.t()]}

  @doc "An empty cart for `owner`."
  @spec new(String.t()) :: t
  def new(owner), do: %__MODULE__{owner: owner}

  @doc """
  Adds `qty` of `item`, refusing more than #{@max_items} lines.
  """
  def add(cart, item, qty \\ 1)

  def add(%__MODULE__{items: items} = cart, _item, _qty) when length(items) >= @max_items do
    {:error, :full}
  end

  def add(cart, item, qty) do
    line = %{item: item, qty: qty}
    {:ok, %{cart | items: [line | cart.items]} |> recompute()}
  end

  @impl Shop.Pricing
  def price(cart), do: cart.total

  # Sums the lines again after any change.
  defp recompute(cart) do
    total = Enum.reduce(cart.items, Money.zero(), &Money.add(&2, Money.times(&1.item.price, &1.qty)))
    %{cart | total: total}
  end

  defguard is_cart(term) when is_struct(term, __MODULE__)

  defmodule EmptyError do
    defexception message: "the cart is empty"
  end
end

defprotocol Shop.Pricing.Discount do
  @doc "The discount that applies to `thing`."
  def discount(thing)
end

defimpl Shop.Pricing.Discount, for: Shop.Cart do
  def discount(%{items: items}) when length(items) > 10, do: 5
  def discount(_cart), do: 0
end

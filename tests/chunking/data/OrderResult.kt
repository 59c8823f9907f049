package shop.orders

/**
 * The outcome of placing an order: a value or the reason it failed.
 */
@JvmInline
public value class OrderResult<out T>
@PublishedApi internal constructor(@PublishedApi internal val holder: Any?) {
    /** Whether the order went through. */
    public val isSuccess: Boolean get() = holder !is Failed

    public fun getOrNull(): T? = if (isSuccess) holder as T else null

    internal class Failed(val reason: String)
}

open class Receipt
@Suppress("unused")
internal constructor(
    internal val lines: List<String>,
) {
    fun print(): String = lines.joinToString("\n")
}

/** Places orders; the declarations after a split constructor are chunks too. */
public interface OrderChannel<E> {
    public suspend fun place(order: E): OrderResult<Unit>
}

public fun <E> OrderChannel<E>.placeAll(orders: List<E>): Int = orders.size

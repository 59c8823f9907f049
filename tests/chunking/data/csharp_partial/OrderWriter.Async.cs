namespace Shop.Orders;

public partial class OrderWriter
{
    public async Task WriteAsync(Order order)
    {
        await _writer.WriteAsync(order.Id);
    }

    public static class Defaults
    {
        public static int Indent => 2;
    }
}

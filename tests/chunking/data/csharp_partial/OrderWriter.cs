namespace Shop.Orders;

/// <summary>Writes orders as JSON.</summary>
public partial class OrderWriter
{
    private readonly TextWriter _writer;

    public void Write(Order order)
    {
        _writer.Write(order.Id);
    }
}

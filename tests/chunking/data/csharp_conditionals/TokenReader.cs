using System;

namespace Shop.Parsing
{
    /// <summary>
    /// Reads tokens from a buffer without copying it.
    /// </summary>
#if SHOP_INTERNAL
    internal
#else
    public
#endif
    ref partial struct TokenReader
    {
        private ReadOnlySpan<byte> buffer;

        public TokenReader(ReadOnlySpan<byte> buffer)
        {
            this.buffer = buffer;
        }

        /// <summary>Reads a date, or a date with its offset where the platform has one.</summary>
        public object ReadDate(string text, bool withOffset)
        {
            if (!withOffset)
            {
                return DateTime.Parse(text);
            }
#if HAVE_DATE_TIME_OFFSET
            else if (text.EndsWith("Z"))
            {
                return DateTimeOffset.Parse(text);
            }
#endif
            else
            {
                return DateTime.Parse(text).ToUniversalTime();
            }
        }

        public int Remaining()
        {
            return buffer.Length;
        }
    }
}

//! A bounded queue of orders waiting for a packer.
const std = @import("std");
const Order = @import("order.zig").Order;

/// Most orders a queue holds.
pub const capacity = 128;

/// What can go wrong when queueing.
pub const QueueError = error{ Full, Closed };

/// Orders in arrival order, at most `capacity` of them.
pub const Queue = struct {
    items: [capacity]Order = undefined,
    len: usize = 0,
    closed: bool = false,

    const Self = @This();

    /// Appends an order at the back.
    pub fn push(self: *Self, order: Order) QueueError!void {
        if (self.closed) return error.Closed;
        if (self.len == capacity) return error.Full;
        self.items[self.len] = order;
        self.len += 1;
    }

    fn isEmpty(self: Self) bool {
        return self.len == 0;
    }

    /// Where a packer stands in the queue.
    pub const Cursor = struct {
        index: usize = 0,

        pub fn next(cursor: *Cursor, queue: *const Self) ?Order {
            if (cursor.index >= queue.len) return null;
            defer cursor.index += 1;
            return queue.items[cursor.index];
        }
    };
};

pub const Priority = enum(u2) {
    low,
    normal,
    urgent,

    pub fn label(p: Priority) []const u8 {
        return @tagName(p);
    }
};

/// A queue of `T` with room for `n` entries.
pub fn Bounded(comptime T: type, comptime n: usize) type {
    return struct {
        buffer: [n]T = undefined,
        len: usize = 0,

        pub fn full(self: @This()) bool {
            return self.len == n;
        }
    };
}

fn drain(queue: *Queue) usize {
    const count = queue.len;
    queue.len = 0;
    return count;
}

test "push refuses a closed queue" {
    var queue = Queue{ .closed = true };
    try std.testing.expectError(error.Closed, queue.push(undefined));
}

test drain {
    var queue = Queue{};
    try std.testing.expectEqual(@as(usize, 0), drain(&queue));
}

package main

//go:generate stringer -type=Status -linecomment

// Status is an order's lifecycle state.
type Status int

const (
	StatusPending   Status = iota // pending
	StatusPaid                    // paid
	StatusShipped                 // shipped
	StatusDelivered               // delivered
	StatusCancelled               // cancelled
	StatusRefunded                // refunded
)

// Cancellable reports whether an order in this status may still be cancelled.
func (s Status) Cancellable() bool {
	return s == StatusPending || s == StatusPaid
}

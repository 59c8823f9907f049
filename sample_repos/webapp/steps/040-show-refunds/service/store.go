package main

import (
	"errors"
	"sort"
	"sync"
	"time"
)

// ErrNotFound is returned when no order has the requested id.
var ErrNotFound = errors.New("order not found")

// Order is the service's view of an order.
type Order struct {
	ID         string    `json:"id"`
	CustomerID string    `json:"customerId"`
	Status     Status    `json:"-"`
	TotalCents int64     `json:"totalCents"`
	Refunded   int64     `json:"refundedCents"`
	Currency   string    `json:"currency"`
	CreatedAt  time.Time `json:"createdAt"`
}

// MemoryStore keeps orders in memory, guarded by a mutex.
type MemoryStore struct {
	mu     sync.Mutex
	orders map[string]Order
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{orders: map[string]Order{}}
}

// Put stores or replaces an order.
func (s *MemoryStore) Put(o Order) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orders[o.ID] = o
}

// Get returns the order with this id.
func (s *MemoryStore) Get(id string) (Order, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return Order{}, ErrNotFound
	}
	return o, nil
}

// ByCustomer returns a customer's orders, oldest first.
func (s *MemoryStore) ByCustomer(customerID string) []Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found []Order
	for _, o := range s.orders {
		if o.CustomerID == customerID {
			found = append(found, o)
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].CreatedAt.Before(found[j].CreatedAt) })
	return found
}

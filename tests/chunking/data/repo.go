// Package store keeps orders in memory for tests and demos.
package store

import (
	"errors"
	"sync"
)

// ErrNotFound is returned when an order id is unknown.
var ErrNotFound = errors.New("not found")

// Limits for the in-memory store.
const (
	MaxOrders = 1000
	MaxLines  = 50
)

const Version = "1.2.0"

// Order is one stored order.
type Order struct {
	ID     string
	Total  int64
	Status string
}

// Store is what the service needs from storage.
type Store interface {
	Get(id string) (*Order, error)
	Save(o *Order) error
}

// ID is an order identifier.
type ID = string

// Repo is an in-memory Store.
type Repo struct {
	mu     sync.Mutex
	orders map[string]*Order
}

// NewRepo returns an empty repository.
func NewRepo() *Repo {
	return &Repo{orders: make(map[string]*Order)}
}

// Save stores or replaces an order.
func (r *Repo) Save(o *Order) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.orders[o.ID] = o
	return nil
}

// Get returns the order with the given id.
func (r *Repo) Get(id string) (*Order, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.orders[id]
	if !ok {
		return nil, ErrNotFound
	}
	return o, nil
}

func (l List[T]) Len() int { return len(l) }

type List[T any] []T

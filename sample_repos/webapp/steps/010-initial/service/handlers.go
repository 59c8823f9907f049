package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

type orderJSON struct {
	Order
	Status string `json:"status"`
}

// Server routes the JSON API to the store.
type Server struct {
	store *MemoryStore
	mux   *http.ServeMux
}

// NewServer wires the routes.
func NewServer(store *MemoryStore) *Server {
	s := &Server{store: store, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /api/orders", s.listOrders)
	s.mux.HandleFunc("POST /api/orders/{id}/cancel", s.cancelOrder)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) {
	customer := r.URL.Query().Get("customer")
	if customer == "" {
		http.Error(w, "customer is required", http.StatusBadRequest)
		return
	}
	writeOrders(w, s.store.ByCustomer(customer))
}

func (s *Server) cancelOrder(w http.ResponseWriter, r *http.Request) {
	if strings.TrimSpace(r.Header.Get("Idempotency-Key")) == "" {
		http.Error(w, "Idempotency-Key header is required", http.StatusBadRequest)
		return
	}
	order, err := s.store.Get(r.PathValue("id"))
	if errors.Is(err, ErrNotFound) {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if order.Status == StatusCancelled {
		writeJSON(w, toJSON(order))
		return
	}
	if !order.Status.Cancellable() {
		http.Error(w, "order can no longer be cancelled", http.StatusConflict)
		return
	}
	order.Status = StatusCancelled
	s.store.Put(order)
	writeJSON(w, toJSON(order))
}

func toJSON(o Order) orderJSON {
	return orderJSON{Order: o, Status: o.Status.String()}
}

func writeOrders(w http.ResponseWriter, orders []Order) {
	out := make([]orderJSON, 0, len(orders))
	for _, o := range orders {
		out = append(out, toJSON(o))
	}
	writeJSON(w, out)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

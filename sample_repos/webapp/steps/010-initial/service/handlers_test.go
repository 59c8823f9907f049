package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

func loadFixture(t *testing.T, store *MemoryStore) {
	t.Helper()
	data, err := os.ReadFile("testdata/orders.json")
	if err != nil {
		t.Fatal(err)
	}
	var orders []Order
	if err := json.Unmarshal(data, &orders); err != nil {
		t.Fatal(err)
	}
	for _, o := range orders {
		o.Status = StatusPaid
		store.Put(o)
	}
}

func TestCancelIsIdempotent(t *testing.T) {
	store := NewMemoryStore()
	loadFixture(t, store)
	server := NewServer(store)
	for i := 0; i < 2; i++ {
		req := httptest.NewRequest(http.MethodPost, "/api/orders/ord_1/cancel", nil)
		req.Header.Set("Idempotency-Key", "k1")
		rec := httptest.NewRecorder()
		server.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("attempt %d: status %d", i, rec.Code)
		}
	}
}

func TestCancelRequiresIdempotencyKey(t *testing.T) {
	server := NewServer(NewMemoryStore())
	rec := httptest.NewRecorder()
	server.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/orders/ord_1/cancel", nil))
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", rec.Code)
	}
}

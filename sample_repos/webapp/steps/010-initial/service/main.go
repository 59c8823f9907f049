// Command service serves the order pages' JSON API.
package main

import (
	"log"
	"net/http"
	"os"
)

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	store := NewMemoryStore()
	log.Printf("listening on %s", addr)
	log.Fatal(http.ListenAndServe(addr, NewServer(store)))
}

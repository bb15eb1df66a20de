package memkv_test

import (
	"testing"

	"github.com/hands-go/hands/kv"
	"github.com/hands-go/hands/kv/driver"
	"github.com/hands-go/hands/kv/kvtest"
	"github.com/hands-go/hands/kv/memkv"
)

func TestConformance(t *testing.T) {
	kvtest.RunConformance(t, func(t *testing.T) driver.Store { return memkv.New() })
}

func TestOpen(t *testing.T) {
	s, err := kv.Open(t.Context(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := kv.Open(t.Context(), "mem://?size=3"); err == nil {
		t.Error("Open with an unknown parameter = nil error")
	}
}

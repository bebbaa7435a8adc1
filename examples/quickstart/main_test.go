package main

import (
	"context"
	"testing"
)

// TestRun runs the walk-through end to end against the embedded mock.
func TestRun(t *testing.T) {
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

package store

import (
	"bytes"
	"context"
	"fmt"
)

// Besides the tuning tables and logs, a store keeps each hardware's
// measured peak, by hardware, and the drivers' pipeline caches, by
// pipeline-cache UUID.
var peaksTable, pipelineTable = []string{"peaks"}, []string{"pipeline-caches"}

// UpdatePeak stores what merge makes of the peak stored for hardware
// (nil where there is none), in one transaction, as Update does: two
// peaks stored at once merge over each other. A nil result writes
// nothing.
func (s *Store) UpdatePeak(ctx context.Context, hardware string, merge func(old []byte) ([]byte, error)) error {
	return s.b.Update(ctx, func(tx Tx) error {
		peak, err := merge(bytes.Clone(tx.Get(peaksTable, []byte(hardware))))
		if err != nil || peak == nil {
			return err
		}
		return tx.Put(peaksTable, []byte(hardware), peak)
	})
}

// LoadPeak returns the peak stored for hardware, or nil; a file that
// cannot be read is an error and a warning, as for Get.
func (s *Store) LoadPeak(ctx context.Context, hardware string) ([]byte, error) {
	return s.load(ctx, "stored peaks not read", peaksTable, []byte(hardware))
}

// SavePipelineCache stores a driver's pipeline cache data under its
// pipeline-cache UUID.
func (s *Store) SavePipelineCache(ctx context.Context, uuid [16]byte, data []byte) error {
	return s.b.Update(ctx, func(tx Tx) error { return tx.Put(pipelineTable, fmt.Appendf(nil, "%x", uuid), data) })
}

// LoadPipelineCache returns the pipeline cache stored for uuid, or nil,
// as LoadPeak does.
func (s *Store) LoadPipelineCache(ctx context.Context, uuid [16]byte) ([]byte, error) {
	return s.load(ctx, "stored pipeline caches not read", pipelineTable, fmt.Appendf(nil, "%x", uuid))
}

// load returns a copy of key's value in table, or nil: Get, LoadPeak and
// LoadPipelineCache.
func (s *Store) load(ctx context.Context, warning string, table []string, key []byte) ([]byte, error) {
	var out []byte
	err := s.b.View(ctx, func(tx Tx) error {
		out = bytes.Clone(tx.Get(table, key))
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			s.Warn("store: %s: %v", warning, err)
		}
		return nil, err
	}
	return out, nil
}

package autotune

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/vkbench/vkbench/status"
)

// Besides the tune results, the cache file keeps two stores of its own,
// in buckets outside the tuning tables: each hardware's measured peak,
// and the drivers' pipeline caches.

// peaksBucket holds each hardware's measured peak, as JSON, outside the
// tuning tables.
const peaksBucket = "peaks"

// PeakRecord is a stored peak measurement.
type PeakRecord struct {
	Peak
	Device  string    `json:"device"`
	Version string    `json:"vkbench_version"`
	Time    time.Time `json:"time"`
}

// SavePeak stores the peak measured on hardware, replacing any earlier one.
func (c *Cache) SavePeak(hardware string, p PeakRecord) error {
	data, err := json.Marshal(p)
	if err != nil {
		return status.Wrap(err, status.Internal, "autotune: encoding peak")
	}
	return c.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(peaksBucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(hardware), data)
	})
}

// LoadPeak returns the peak stored for hardware, if any. A file that
// cannot be read is an error and a warning.
func (c *Cache) LoadPeak(hardware string) (*PeakRecord, error) {
	var out *PeakRecord
	err := c.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(peaksBucket))
		if b == nil {
			return nil
		}
		v := b.Get([]byte(hardware))
		if v == nil {
			return nil
		}
		var p PeakRecord
		if err := json.Unmarshal(v, &p); err != nil {
			c.warn("autotune: cache %s: stored peak of %s is unreadable: %v", c.path, hardware, err)
			return nil
		}
		out = &p
		return nil
	})
	if err != nil {
		c.warn("autotune: stored peaks not read: %v", err)
	}
	return out, err
}

// pipelineBucket holds driver pipeline caches by pipeline-cache UUID.
const pipelineBucket = "pipeline-caches"

// SavePipelineCache stores a driver's pipeline cache data under its
// pipeline-cache UUID.
func (c *Cache) SavePipelineCache(uuid [16]byte, data []byte) error {
	return c.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(pipelineBucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(fmt.Sprintf("%x", uuid)), data)
	})
}

// LoadPipelineCache returns the pipeline cache stored for uuid, or nil. A
// file that cannot be read is an error and a warning.
func (c *Cache) LoadPipelineCache(uuid [16]byte) ([]byte, error) {
	var out []byte
	err := c.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(pipelineBucket)); b != nil {
			out = bytes.Clone(b.Get([]byte(fmt.Sprintf("%x", uuid))))
		}
		return nil
	})
	if err != nil {
		c.warn("autotune: stored pipeline caches not read: %v", err)
	}
	return out, err
}

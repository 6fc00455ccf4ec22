// Package store keeps what vkbench remembers between runs: the tune
// cache's answers, the tuning logs of searches, each hardware's measured
// peak and the drivers' pipeline caches. It keeps bytes; what they mean
// belongs to their owners (autotune encodes its entries and log records,
// and decides which answer a commit keeps).
//
// # Basics
//
// A Store is opened on the local file, which several processes may share:
//
//	s, err := store.Open(store.Options{}) // $VKBENCH_CACHE, else DefaultCachePath()
//	t := store.Table{Hardware: info.Hardware(), Tuner: "builtin"}
//	v, err := s.Get(ctx, t, []byte("gemm/f32/4096x4096x4096@3f2a…"))
//	err = s.Update(ctx, t, func(rows store.Rows) error {
//		if rows.Get(key) != nil {
//			return nil // the first answer stays
//		}
//		return rows.Put(key, value)
//	})
//
// A Table is one tuner's answers for one hardware; its name,
// autotune/<schema>/layout-v1/<hardware>/<tuner>, is built by
// Table.String and nowhere else. Update is an atomic read-modify-write of
// one table: no other writer, in this process or another, comes between
// what its function reads and what it writes, so a rule such as "the
// first answer committed wins" holds across processes. Tables, Scan and
// Clear list, read and remove tables; LogRef names a search's tuning log
// (a header, records by identity, searches in order); UpdatePeak and
// SavePipelineCache keep the other two kinds of data.
//
// Every call that may wait takes its caller's context: a wait for another
// process's lock on the file, or for a shared store's answer, ends when
// it does, with its error and no warning, and a call whose context has
// already ended does nothing. A write it ends writes nothing, unless a
// shared store's writes were already on their way.
//
// The store keeps nothing in memory: every Get reads the file, so an
// answer another process committed is found. Callers that ask the same
// question often (autotune's Tuner) keep their own map in front of it.
//
// # Backends
//
// Everything a Store does goes through a Backend (tables of bytes, with
// an atomic Update), which knows nothing of entries, logs or peaks; no
// bbolt type appears in it. The local bbolt file is one Backend, the only
// one Open makes itself; New wraps any other. What a Store relies on of
// a Backend is checked by storetest.TestBackend, which every backend runs
// from a test of its own.
//
// # The shared tier
//
// Options.Shared names a shared store by URL, the tier a fleet of
// machines shares above each one's file: a backend registered for the
// URL's scheme (RegisterShared; store/redis registers redis:// and
// rediss://, and a program that does not import it builds no Redis
// client). Store.Shared is that tier as a Store of its own: which tier a
// question is asked of, and when an answer is copied down, is the
// caller's (autotune's Tuner). Open asks the store once (Pinger): a
// refusal is Open's error. Past that, a shared store may fail at any
// moment: its first failure is one warning, and the tier is then left
// alone for a while, its calls failing at once with Unavailable, so that
// work goes on from the file.
//
// A Locker backend holds named locks with an expiry (TryLock, a Lease
// renewed until released), with which one machine tunes a question while
// the others wait for its answer. The file holds such locks too, for the
// processes that share it (N CI jobs on one runner). A lock whose holder
// is a process of this host that no longer exists is taken over at once.
//
// # Caveats
//
// Problems with the file never stop the work: each is an error with a
// status code (see Store) and a warning that names the file (Warnings).
// Reads never change the file. Tables of another SchemaVersion are
// neither read nor changed, so versions of vkbench can share a file. A
// Store opened on the path "off" touches no file: reads find nothing and
// writes keep nothing.
package store

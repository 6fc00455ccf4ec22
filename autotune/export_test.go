package autotune

import "time"

// SetClock makes now the clock by which t's failed keys wait.
func SetClock(t *Tuner, now func() time.Time) { t.now = now }

// Package faulty wraps any HAL backend to inject faults into it, so that
// tests can prove that code above the HAL — and the backend's own error
// paths — behave as the error model says when things go wrong.
//
// Faults are injected by wrapping, never by replacing: whatever does not
// fail reaches the real device and computes for real.
//
// # Basics
//
// A Plan says which calls fail and how; Wrap (or WrapDriver) applies it to
// a device and to every object the device creates:
//
//	plan := faulty.NewPlan()
//	dev = faulty.Wrap(dev, plan)
//
//	plan.FailNth(faulty.Dispatch, 1, status.Aborted) // the next Dispatch fails
//	plan.FailAsync(3, 0)                            // the 3rd Submit's fence fails
//	plan.FailRate(0.05, seed, 0)                    // 5% of every kind of call
//	plan.LoseAt(faulty.Wait, 2)                     // lost at the 2nd Wait
//	plan.LoseAfter(10 * time.Millisecond)           // lost while work is in flight
//	plan.CorruptRead(1)                             // the next Buffer.Read reads a wrong result
//
//	plan.Hold()    // submissions stay in the wrapper: their fences never complete
//	plan.Release() // ... until now
//
//	plan.Calls(faulty.Submit)  // how many submissions were made
//	plan.Faults(faulty.Submit) // how many of them were made to fail
//	plan.Injected()            // what was injected, in order
//
// # Faults
//
// A synchronous failure (Fail) is returned by the call without the wrapped
// object being asked, so every object stays as it was. Its error carries the
// rule's code (Internal by default), says it was injected, and matches
// ErrInjected.
//
// An asynchronous failure (FailAsync) belongs to a submission: it runs on
// the real device, and its fence reports the injected error once it has
// completed. Every later submission that waits on it, directly or through
// others, fails with an error whose cause is that first failure (errors.Is
// finds it); submissions that do not wait on it are not affected.
//
// A loss (Lose, LoseNow, LoseAfter) goes through the wrapped device's own
// loss path, hal.LossMarker's MarkLost, so the backend's code for a lost
// device is what runs; the wrapper then reports what the backend says.
// When the wrapped device has no MarkLost, the wrapper emulates the loss.
// A lost device injects no more faults.
//
// A corrupted read (CorruptRead) reads the real buffer and returns its
// bytes with every bit flipped: the code above sees a kernel that computed
// a wrong result, on a device that works.
//
// A failure injected at Poll returns done false with the error: the
// submission is as it was. A loss injected at Wait or Poll is reported
// there, as a driver reports a loss it finds while waiting.
//
// # Holding
//
// Plan.Hold keeps later submissions in the wrapper: they do not reach the
// wrapped queue, so their fences cannot complete. Wait on them returns the
// context's error (DeadlineExceeded, Cancelled) when it is done, and they
// can be waited on again; their command buffers are in flight
// (hal.ErrInFlight), and can be released. Plan.Release lets them through in order. A loss fails
// them at once, and releasing the device fails them with hal.ErrReleased.
// No goroutine is involved: nothing is left running when a test ends.
//
// # Caveats
//
// A Plan shared by several devices shares its counters and rules: "the 3rd
// Submit" is the 3rd among all of them. Rules count the calls made after
// they are added; when two take the same call, the first added applies.
// In status.ModeCode errors keep no cause, so injected errors then match
// only their code.
//
// A submission that waits on one that failed asynchronously still runs on
// the device (its results are not to be trusted); only its fence fails.
//
// A held submission has not been given to the wrapped device yet, so the
// checks the wrapped Submit makes happen when the hold ends, and their
// error is reported by the fence.
//
// Without hal.LossMarker underneath, an emulated loss fails the wrapper's
// fences at once while the work goes on running on the device. Releasing
// objects then is safe all the same: every backend keeps what a submission
// uses until the submission is done (hal's Ownership).
//
// A command buffer released while its submission is held is released
// underneath when the hold ends.
package faulty

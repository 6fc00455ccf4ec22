package status_test

import (
	"context"
	"errors"
)

var (
	errContextCanceled = context.Canceled
	errForeign         = errors.New("something foreign")
)

//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package sqlstore

import (
	"errors"
	"os"
	"syscall"
)

// lockExclusive blocks until f holds an exclusive flock(2) lock.
func lockExclusive(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

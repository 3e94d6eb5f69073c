//go:build windows

package sqlstore

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockExclusive blocks until f holds an exclusive LockFileEx lock on its
// first byte.
func lockExclusive(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

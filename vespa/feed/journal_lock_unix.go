//go:build unix

package feed

import (
	"errors"
	"os"
	"syscall"
)

// lockJournal takes an exclusive flock(2) on f, without waiting; the lock
// goes with f's close.
func lockJournal(f *os.File) error {
	for range 100 { // EINTR is retried, a bounded number of times
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrJournalInUse
		case !errors.Is(err, syscall.EINTR):
			return err
		}
	}
	return syscall.EINTR
}

// Package safefile opens the files the SDK and the sms command keep for a user (bulk job
// journals, sms doctor's saved answers) so that a path planted by someone else cannot turn a
// write into damage elsewhere: the last component of the path is never followed when it is a
// symbolic link, anything but a regular file is refused, and so is (on Linux, macOS and the
// BSDs) a file owned by another user. A file it creates is readable and writable by its owner
// only (0600), and MakePrivate tightens an existing one to 0600, once the caller has checked
// that the file holds what it should (OpenWrite changes nothing). Elsewhere a link is looked for before the file is opened, which a
// link put in its place between the two escapes.
package safefile

import (
	"errors"
	"io/fs"
	"os"
)

// Errors of a refused file, wrapped in an *fs.PathError that names the file.
var (
	// ErrSymlink: the path's last component is a symbolic link.
	ErrSymlink = errors.New("is a symbolic link, which is not followed")
	// ErrNotRegular: the path is a directory, a device, a pipe or a socket.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrOtherOwner: the file belongs to another user.
	ErrOtherOwner = errors.New("belongs to another user")
	// ErrPermissions: the file's permissions are looser than 0600 and could not be tightened.
	ErrPermissions = errors.New("is readable or writable by others and could not be made private")
)

// OpenWrite opens path for reading and writing, creating it (0600, and only if it does not
// exist at that moment) when missing; created reports whether it did. The directory is not
// created.
func OpenWrite(path string) (f *os.File, created bool, err error) {
	f, err = openNoFollow(path, os.O_RDWR)
	if create := errors.Is(err, fs.ErrNotExist); create {
		f, err = openNoFollow(path, os.O_RDWR|os.O_CREATE|os.O_EXCL)
		created = err == nil
		if errors.Is(err, fs.ErrExist) { // created meanwhile, or a dangling link: open what is there
			f, err = openNoFollow(path, os.O_RDWR)
		}
	}
	if err != nil {
		return nil, false, refused(path, err)
	}
	if err := check(f, path); err != nil {
		f.Close()
		return nil, false, err
	}
	return f, created, nil
}

// OpenRead opens the existing file path for reading only; a missing file is an error matching
// fs.ErrNotExist. Its permissions are left as they are.
func OpenRead(path string) (*os.File, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if err != nil {
		return nil, refused(path, err)
	}
	if err := check(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// MakePrivate tightens the permissions of f, opened by OpenWrite, to its owner's (0600 at
// most). It is called once the caller has checked that the file is its own kind of file:
// OpenWrite changes nothing, so that a file refused for what it holds is left as it was.
func MakePrivate(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(fi.Mode().Perm() & 0o600); err != nil {
			return &fs.PathError{Op: "chmod", Path: path, Err: errors.Join(ErrPermissions, err)}
		}
	}
	return nil
}

// WriteFile writes data to path as OpenWrite opens it, replacing what the file held, made
// private (see MakePrivate), and syncs it.
func WriteFile(path string, data []byte) error {
	f, _, err := OpenWrite(path)
	if err != nil {
		return err
	}
	err = MakePrivate(f, path)
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.WriteAt(data, 0)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// refused turns the error of opening a symbolic link without following it (ELOOP on Linux,
// other numbers elsewhere) into ErrSymlink, and that of opening a directory for writing
// into ErrNotRegular.
func refused(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	} else if lerr == nil && !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return err
}

// check refuses what f, just opened, must not be.
func check(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if !ownedByMe(fi) {
		return &fs.PathError{Op: "open", Path: path, Err: ErrOtherOwner}
	}
	return nil
}

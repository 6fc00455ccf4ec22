package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// outFile is where a command writes its output: standard output, or a file
// given with -o, written atomically. The file's bytes go to a temporary
// file in the same folder, which Commit renames over the path once the
// command has succeeded; Discard removes it. A command that fails, or is
// interrupted, leaves an existing file as it was and no partial one.
type outFile struct {
	io.Writer
	path string
	tmp  *os.File // nil for standard output
}

// openOutput opens path for output (standard output if path is empty). It
// checks at once that the file can be written, before any work is done,
// and refuses a path that is the tune cache's file, which a result file
// would destroy.
func openOutput(cmd *cobra.Command, path, cachePath string) (*outFile, error) {
	if path == "" {
		return &outFile{Writer: cmd.OutOrStdout()}, nil
	}
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, usageError{fmt.Errorf("-o %s: not a regular file", path)}
		}
		if cachePath != "" {
			if ci, err := os.Stat(cachePath); err == nil && os.SameFile(fi, ci) {
				return nil, usageError{fmt.Errorf("-o %s is the tune cache's file; writing results there would destroy it", path)}
			}
		}
	}
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(cmp.Or(dir, "."), "."+base+".tmp-*")
	if err != nil {
		return nil, usageError{fmt.Errorf("-o %s: %w", path, unwrapPathError(err))}
	}
	return &outFile{Writer: tmp, path: path, tmp: tmp}, nil
}

// writeOutput writes a command's output to path (standard output if
// empty) with write, atomically: see openOutput and finish.
func writeOutput(cmd *cobra.Command, path, cachePath string, write func(io.Writer) error) error {
	out, err := openOutput(cmd, path, cachePath)
	if err != nil {
		return err
	}
	return out.finish(write(out))
}

// unwrapPathError drops the temporary file's name from err: the user named
// the output, not the temporary file.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Commit makes the written bytes the file's content (0644, as a file made
// with os.Create). On failure the file is left as it was.
func (o *outFile) Commit() error {
	if o.tmp == nil {
		return nil
	}
	tmp := o.tmp
	o.tmp = nil
	err := errors.Join(tmp.Chmod(0o644), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), o.path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the error below is what matters
		return fmt.Errorf("-o %s: %w", o.path, unwrapPathError(err))
	}
	return nil
}

// Discard drops what was written; the file stays as it was. It does
// nothing after Commit.
func (o *outFile) Discard() {
	if o.tmp == nil {
		return
	}
	_ = o.tmp.Close() // the file goes away; nothing to report
	_ = os.Remove(o.tmp.Name())
	o.tmp = nil
}

// finish commits the output if err is nil, discards it otherwise, and
// returns err joined with the commit's error.
func (o *outFile) finish(err error) error {
	if err != nil {
		o.Discard()
		return err
	}
	return o.Commit()
}

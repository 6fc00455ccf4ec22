package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// outFile is where a command writes its output: standard output, or the
// file given with -o. A regular file is written atomically: the bytes go
// to a temporary file beside it, which finish renames over it once the
// command has succeeded, keeping its permissions, or else removes. A
// symbolic link is followed to the file it names, which is replaced, not
// the link. Anything else (a terminal, a pipe, /dev/stdout, a descriptor
// under /dev/fd or /proc) cannot be replaced: what the command writes is
// kept in memory and written to it at finish. Either way a command that
// fails, or is interrupted, writes nothing.
type outFile struct {
	w      io.Writer
	name   string // for messages: "-o PATH", or "standard output"
	path   string // as given; "" for standard output
	target string // the regular file tmp replaces: path, links followed
	mode   os.FileMode
	tmp    *os.File      // the atomic case
	direct *bytes.Buffer // the non-regular case
	err    error         // the first error of Write
}

// errOutput is a failure to write the command's output (a full disk, a
// closed pipe): exit status 4, not a device's failure, naming the output
// the user gave, never a temporary file.
type errOutput struct{ err error }

func (e errOutput) Error() string { return e.err.Error() }
func (e errOutput) Unwrap() error { return e.err }

// input is a file the command reads, which its output may not replace:
// its path, and what it is, in the words a refusal says it in.
type input struct{ path, what string }

// inputs are the paths, each what.
func inputs(what string, paths ...string) []input {
	in := make([]input, len(paths))
	for i, p := range paths {
		in[i] = input{p, what}
	}
	return in
}

// openOutput opens path for output (standard output if path is empty). It
// checks at once that the file can be written, before any work is done,
// and refuses a path that is one of the command's inputs (the same file,
// os.SameFile, by whichever name or link leads to it), which the output
// would destroy: the first of them that it is, so a caller lists first
// what the user named on the command line.
func openOutput(cmd *cobra.Command, path string, inputs ...input) (*outFile, error) {
	if path == "" {
		return &outFile{w: cmd.OutOrStdout(), name: "standard output"}, nil
	}
	o := &outFile{name: "-o " + path, path: path, mode: 0o644}
	target, descriptor, err := followLinks(path)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", o.name, err)}
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return nil, usageError{fmt.Errorf("%s: is a directory", o.name)}
	case err == nil && (descriptor || !fi.Mode().IsRegular()):
		o.direct = &bytes.Buffer{}
		o.w = o.direct
		return o, nil
	case err == nil:
		for _, in := range inputs {
			if ii, err := os.Stat(in.path); err == nil && os.SameFile(fi, ii) {
				return nil, usageError{fmt.Errorf("%s is %s, %s; writing there would destroy it", o.name, in.path, in.what)}
			}
		}
		o.mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, usageError{fmt.Errorf("%s: %w", o.name, unwrapPathError(err))}
	}
	dir, base := filepath.Split(target)
	o.target = target
	if o.tmp, err = os.CreateTemp(cmp.Or(dir, "."), "."+base+".tmp-*"); err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", o.name, unwrapPathError(err))}
	}
	o.w = o.tmp
	return o, nil
}

// followLinks returns the file that path names once its symbolic links
// are followed (the last may not exist yet: it is the file to create), and
// whether a link on the way led into /dev or /proc, where a name stands
// for an open descriptor (/dev/stdout) that replacing would not reach.
func followLinks(path string) (target string, descriptor bool, err error) {
	descriptor = strings.HasPrefix(filepath.Clean(path), "/dev/")
	for range 40 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return path, descriptor, nil
		}
		if err != nil {
			return "", false, unwrapPathError(err)
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", false, unwrapPathError(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		descriptor = descriptor || strings.HasPrefix(link, "/dev/") || strings.HasPrefix(link, "/proc/")
		path = link
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// writeOutput writes a command's output to path (standard output if
// empty) with write, atomically: see openOutput and finish.
func writeOutput(cmd *cobra.Command, path string, write func(io.Writer) error, inputs ...input) error {
	out, err := openOutput(cmd, path, inputs...)
	if err != nil {
		return err
	}
	return out.finish(write(out))
}

// unwrapPathError drops the file's name from err: the user named the
// output, not the temporary file.
func unwrapPathError(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}

// Write writes to the output; an error of it is an errOutput naming the
// output as the user gave it (once: standard output is an outFile itself),
// and the first is kept in o.err.
func (o *outFile) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if _, named := err.(errOutput); err != nil && !named {
		err = errOutput{fmt.Errorf("%s: %w", o.name, unwrapPathError(err))}
	}
	if o.err == nil {
		o.err = err
	}
	return n, err
}

// finish ends the output. Where err is nil it commits the written bytes
// as the output's content: a regular file is replaced, with its
// permissions (0644 for a new one); anything else is written; on failure
// a regular file is left as it was. Otherwise it drops what was written,
// and the output stays as it was. It returns err, or the commit's error.
func (o *outFile) finish(err error) error {
	tmp, direct := o.tmp, o.direct
	o.tmp, o.direct = nil, nil
	switch {
	case err != nil:
		if tmp != nil {
			_ = tmp.Close() // the file goes away; nothing to report
			_ = os.Remove(tmp.Name())
		}
		return err
	case tmp != nil:
		err = errors.Join(tmp.Chmod(o.mode), tmp.Sync(), tmp.Close())
		if err == nil {
			err = os.Rename(tmp.Name(), o.target)
		}
		if err != nil {
			_ = os.Remove(tmp.Name()) // best effort: the error below is what matters
		}
	case direct != nil:
		var f *os.File
		if f, err = os.OpenFile(o.path, os.O_WRONLY, 0); err == nil {
			_, err = f.Write(direct.Bytes())
			err = errors.Join(err, f.Close())
		}
	}
	if err != nil {
		return errOutput{fmt.Errorf("%s: %w", o.name, unwrapPathError(err))}
	}
	return nil
}

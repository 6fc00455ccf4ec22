package manifest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vkbench/vkbench/status"
)

// This file reads a manifest's JSON into a tree that remembers the order
// of object keys (dimensions are ordered) and where each value starts, so
// that every error can name the file, the line and column, and the JSON
// path of the field (operations[0].candidates[1].groups[0]). Decoding
// into structs would lose all three.

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

var jsonKindNames = [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}

func (k jsonKind) String() string { return jsonKindNames[k] }

// jsonNode is one JSON value.
type jsonNode struct {
	kind jsonKind
	path string
	off  int64 // byte offset of the value's first character
	b    bool
	s    string // a string, or a number's literal text
	// keys and vals are an object's members, in order.
	keys []string
	vals []*jsonNode
	// elems are an array's elements.
	elems []*jsonNode
}

func (n *jsonNode) member(key string) *jsonNode {
	if i := slices.Index(n.keys, key); i >= 0 {
		return n.vals[i]
	}
	return nil
}

// maxJSONDepth bounds nesting; no manifest needs more than a few levels.
const maxJSONDepth = 32

// manifestSource names a manifest in errors and knows where its lines are.
type manifestSource struct {
	name string // the file's path, or "manifest" for bytes without one
	data []byte
}

// position returns "name:line:col" of a byte offset.
func (src *manifestSource) position(off int64) string {
	off = min(max(off, 0), int64(len(src.data)))
	line := 1 + bytes.Count(src.data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(src.data[:off], '\n')
	return fmt.Sprintf("%s:%d:%d", src.name, line, col)
}

// where returns "file:line:col: path" of n, which errors and warnings
// about it name.
func (src *manifestSource) where(n *jsonNode) string {
	return src.position(n.off) + ": " + cmp.Or(n.path, "(top level)")
}

// errAt is an InvalidArgument naming the position and path of n.
func (src *manifestSource) errAt(n *jsonNode, format string, args ...any) error {
	return errWhere(status.InvalidArgument, src.where(n), format, args...)
}

// errMissing reports a required field missing from object n.
func (src *manifestSource) errMissing(n *jsonNode, key, what string) error {
	return status.Newf(status.InvalidArgument, "manifest: %s: %s: missing (%s)", src.position(n.off), joinPath(n.path, key), what)
}

func joinPath(parent, key string) string {
	if !isIdent(key) {
		key = strconv.Quote(key)
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// parseJSON reads data into a tree. Syntax errors name the line and
// column; like the parse of each value, it unwinds (must) on one.
func (src *manifestSource) parseJSON() *jsonNode {
	dec := json.NewDecoder(bytes.NewReader(src.data))
	dec.UseNumber()
	n := src.parseValue(dec, "", 0)
	if _, err := dec.Token(); err != io.EOF {
		check(status.Newf(status.InvalidArgument, "manifest: %s: text after the manifest's JSON object", src.position(dec.InputOffset())))
	}
	return n
}

// start returns the offset of the next value at or after off: past
// white space, ':' and ','.
func (src *manifestSource) start(off int64) int64 {
	rest := src.data[off:]
	return off + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n:,")))
}

func (src *manifestSource) syntaxError(dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		off = se.Offset
	}
	msg := err.Error()
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		msg = "unexpected end of the file"
	}
	return status.Newf(status.InvalidArgument, "manifest: %s: malformed JSON: %s", src.position(off), strings.TrimPrefix(msg, "json: "))
}

// token reads the next token, and the offset where it starts.
func (src *manifestSource) token(dec *json.Decoder) (json.Token, int64) {
	off := src.start(dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		check(src.syntaxError(dec, err))
	}
	return tok, off
}

func (src *manifestSource) parseValue(dec *json.Decoder, path string, depth int) *jsonNode {
	tok, off := src.token(dec)
	n := &jsonNode{path: path, off: off}
	switch t := tok.(type) {
	case nil:
		n.kind = jsonNull
	case bool:
		n.kind, n.b = jsonBool, t
	case json.Number:
		n.kind, n.s = jsonNumber, string(t)
	case string:
		n.kind, n.s = jsonString, t
	case json.Delim:
		if depth >= maxJSONDepth {
			check(src.errAt(n, "nested more than %d levels deep", maxJSONDepth))
		}
		switch t {
		case '{':
			n.kind = jsonObject
			for dec.More() {
				ktok, koff := src.token(dec)
				key := ktok.(string) // Token refuses any other key as malformed
				kpath := joinPath(path, key)
				if slices.Contains(n.keys, key) {
					check(status.Newf(status.InvalidArgument, "manifest: %s: %s: given twice", src.position(koff), kpath))
				}
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, src.parseValue(dec, kpath, depth+1))
			}
		case '[':
			n.kind = jsonArray
			for i := 0; dec.More(); i++ {
				n.elems = append(n.elems, src.parseValue(dec, fmt.Sprintf("%s[%d]", path, i), depth+1))
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			check(src.syntaxError(dec, err))
		}
	}
	return n
}

// The decoder stops at the first problem of a manifest. Its steps do not
// return each error to their callers by hand: must and check unwind to
// the nearest catch, which returns it, as Effective Go's parser example
// does with panic and recover. Only parseManifest, decodeOperation
// (whose errors a space annotates) and decodeCandidate catch, so only
// what they call may use must or check; the leaf readers (str, integer,
// object...) return errors as usual.
type decodeError struct{ err error }

// check unwinds the decoder with err, if it is one; must returns v, or
// unwinds with err.
func check(err error) {
	if err != nil {
		panic(decodeError{err})
	}
}

func must[T any](v T, err error) T {
	check(err)
	return v
}

// unwinding is a panic that carries an error: a decodeError, or an
// *exprError of an expression's parse or evaluation.
type unwinding interface{ cause() error }

func (e decodeError) cause() error { return e.err }

// catch, deferred, returns in *err the error that a panic with a T
// carries; any other panic goes on.
func catch[T unwinding](err *error) {
	if r := recover(); r != nil {
		e, ok := r.(T)
		if !ok {
			panic(r)
		}
		*err = e.cause()
	}
}

// jsonObj reads the fields of an object node, remembering which were
// asked for so that done can reject any other as unknown.
type jsonObj struct {
	src   *manifestSource
	n     *jsonNode
	known []string
}

// object returns n as an object, or an error if it is not one.
func (src *manifestSource) object(n *jsonNode, what string) (*jsonObj, error) {
	if err := src.is(n, jsonObject, "an object ("+what+")"); err != nil {
		return nil, err
	}
	return &jsonObj{src: src, n: n, known: []string{"comment"}}, nil
}

// get returns the field key, or nil if absent (or null).
func (o *jsonObj) get(key string) *jsonNode {
	if !slices.Contains(o.known, key) {
		o.known = append(o.known, key)
	}
	v := o.n.member(key)
	if v != nil && v.kind == jsonNull {
		return nil
	}
	return v
}

// need returns the field key, or an error that says it is missing and
// what it is for.
func (o *jsonObj) need(key, what string) (*jsonNode, error) {
	v := o.get(key)
	if v == nil {
		// A misspelling of a required field is better reported as such
		// than as the field missing.
		for i, k := range o.n.keys {
			if k != key && !slices.Contains(o.known, k) && editDistance(k, key) <= max(1, len(key)/3) {
				return nil, o.src.errAt(o.n.vals[i], "unknown field (did you mean %q? it is required: %s)", key, what)
			}
		}
		return nil, o.src.errMissing(o.n, key, what)
	}
	return v, nil
}

// needString returns the field key, a string, and its value; only the
// decoder calls it, as it unwinds (must) where the field is not one.
func (o *jsonObj) needString(key, what string) (*jsonNode, string) {
	n := must(o.need(key, what))
	return n, must(o.src.str(n))
}

// needList returns the field key, an array of at least one element (see
// list).
func (o *jsonObj) needList(key, what, atLeast string) ([]*jsonNode, error) {
	return o.src.list(must(o.need(key, what)), what, atLeast)
}

// done fails on a field that was not asked for: a misspelt name must not
// be silently ignored. "comment" is allowed everywhere, for people.
func (o *jsonObj) done() error {
	for i, k := range o.n.keys {
		if slices.Contains(o.known, k) {
			continue
		}
		known := slices.Clone(o.known[1:])
		slices.Sort(known)
		msg := "unknown field"
		if s := suggest(k, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return o.src.errAt(o.n.vals[i], "%s; known fields here: %s", msg, strings.Join(known, ", "))
	}
	if c := o.n.member("comment"); c != nil {
		return o.src.is(c, jsonString, "a string")
	}
	return nil
}

// optional reads the field key of o with read into *dst, if o has it;
// only the decoder calls it, as it unwinds (must) where read fails.
func optional[T any](o *jsonObj, key string, dst *T, read func(*jsonNode) (T, error)) {
	if n := o.get(key); n != nil {
		*dst = must(read(n))
	}
}

// Typed readers of leaf values.

// is fails unless n is of kind k, saying what was wanted.
func (src *manifestSource) is(n *jsonNode, k jsonKind, want string) error {
	if n.kind != k {
		return src.errAt(n, "is %s, want %s", n.kind, want)
	}
	return nil
}

func (src *manifestSource) str(n *jsonNode) (string, error) {
	return n.s, src.is(n, jsonString, "a string")
}

func (src *manifestSource) boolean(n *jsonNode) (bool, error) {
	return n.b, src.is(n, jsonBool, "true or false")
}

func (src *manifestSource) array(n *jsonNode, what string) ([]*jsonNode, error) {
	return n.elems, src.is(n, jsonArray, "an array ("+what+")")
}

// integer reads a JSON number that must be an integer in [lo, hi].
func (src *manifestSource) integer(n *jsonNode, lo, hi int64) (int64, error) {
	if err := src.is(n, jsonNumber, "an integer"); err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(n.s, 10, 64)
	if err != nil {
		return 0, src.errAt(n, "%s is not an integer", n.s)
	}
	if v < lo || v > hi {
		return 0, src.errAt(n, "%d is outside [%d, %d]", v, lo, hi)
	}
	return v, nil
}

// intIn returns a reader of integers in [lo, hi] as ints, for optional.
func (src *manifestSource) intIn(lo, hi int64) func(*jsonNode) (int, error) {
	return func(n *jsonNode) (int, error) {
		v, err := src.integer(n, lo, hi)
		return int(v), err
	}
}

// number reads any finite JSON number.
func (src *manifestSource) number(n *jsonNode) (float64, error) {
	if err := src.is(n, jsonNumber, "a number"); err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(n.s, 64)
	if err != nil {
		return 0, src.errAt(n, "%s is not a finite number", n.s)
	}
	return v, nil
}

// choice reads a string that must be one of names, and returns its
// index; what names it in the error, which lists names joined by sep.
func (src *manifestSource) choice(n *jsonNode, what string, names []string, sep string) (int, error) {
	s, err := src.str(n)
	if err != nil {
		return 0, err
	}
	i := slices.Index(names, s)
	if i < 0 {
		return 0, src.errAt(n, "unknown %s %q (want %s)", what, s, strings.Join(names, sep))
	}
	return i, nil
}

// list reads an array that must have an element: what says what it is,
// atLeast what needs one ("an operation has at least one buffer").
func (src *manifestSource) list(n *jsonNode, what, atLeast string) ([]*jsonNode, error) {
	elems, err := src.array(n, what)
	if err == nil && len(elems) == 0 {
		err = src.errAt(n, "is empty; %s", atLeast)
	}
	return elems, err
}

// expression reads an expression: a string in the expression language,
// a JSON number, or a boolean (1 or 0). Errors name the column in the
// expression.
func (src *manifestSource) expression(n *jsonNode, scope exprScope) (*expr, error) {
	switch n.kind {
	case jsonNumber:
		if i, err := strconv.ParseInt(n.s, 10, 64); err == nil {
			return literalExpr(intValue(i)), nil
		}
		f, err := src.number(n)
		return literalExpr(floatValue(f)), err
	case jsonBool:
		return literalExpr(boolValue(n.b)), nil
	case jsonString:
		e, err := parseExpr(n.s, scope)
		if err != nil {
			return nil, src.errAt(n, "expression %q %v", n.s, err)
		}
		return e, nil
	}
	return nil, src.errAt(n, "is %s, want an expression (a string such as \"div_up(N, 256)\") or a number", n.kind)
}

// canonicalJSON appends a canonical encoding of n to b: the same value
// written with other spacing gives the same bytes.
func canonicalJSON(b []byte, n *jsonNode) []byte {
	switch n.kind {
	case jsonNull:
		return append(b, "null"...)
	case jsonBool:
		return strconv.AppendBool(b, n.b)
	case jsonNumber:
		return append(b, n.s...)
	case jsonString:
		return strconv.AppendQuote(b, n.s)
	case jsonArray:
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = canonicalJSON(b, e)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, k := range n.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = canonicalJSON(append(strconv.AppendQuote(b, k), ':'), n.vals[i])
	}
	return append(b, '}')
}

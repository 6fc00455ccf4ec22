package spirv

import (
	"encoding/binary"
	"iter"

	"github.com/vkbench/vkbench/status"
)

// Words returns a module's code as words, after the checks every reader
// of a module needs first: a whole number of words, a header, the magic
// number of a little-endian module, and instructions that each end
// inside the module (Parse checks more).
func Words(code []byte) ([]uint32, error) {
	if len(code)%4 != 0 {
		return nil, status.Newf(status.InvalidArgument, "spirv: length %d is not a multiple of 4", len(code))
	}
	if len(code) < headerWords*4 {
		return nil, status.Newf(status.InvalidArgument, "spirv: %d bytes is shorter than the 20-byte header", len(code))
	}
	words := toWords(code)
	switch w := words[0]; w {
	case magic:
	case 0x03022307:
		return nil, status.New(status.InvalidArgument, "spirv: the module is big-endian; only little-endian modules are accepted")
	default:
		return nil, status.Newf(status.InvalidArgument, "spirv: not SPIR-V: magic number 0x%08x, want 0x%08x", w, magic)
	}
	n := len(words)
	for i := headerWords; i < n; {
		count, op := int(words[i]>>16), words[i]&0xffff
		if count == 0 {
			return nil, status.Newf(status.InvalidArgument, "spirv: instruction at word %d (opcode %d) has word count 0", i, op)
		}
		if i+count > n {
			return nil, status.Newf(status.InvalidArgument, "spirv: instruction at word %d (opcode %d) has %d words, past the module's end at word %d", i, op, count, n)
		}
		i += count
	}
	return words, nil
}

// Instructions yields the instructions of a module's words (as Words
// returns them) after the header: the index of each one's first word,
// and its words, the first of which holds its word count and opcode
// (Opcode), the rest its operands.
func Instructions(words []uint32) iter.Seq2[int, []uint32] {
	return func(yield func(int, []uint32) bool) {
		for i := headerWords; i < len(words); {
			n := int(words[i] >> 16)
			if !yield(i, words[i:i+n]) {
				return
			}
			i += n
		}
	}
}

// Header returns the words of a module's header, which precede its
// instructions.
func Header(words []uint32) []uint32 { return words[:headerWords] }

// Opcode returns the opcode of an instruction's words.
func Opcode(ins []uint32) Op { return Op(ins[0] & 0xffff) }

// Instruction returns the words of an instruction of opcode op with the
// given operands.
func Instruction(op Op, operands ...uint32) []uint32 {
	return append([]uint32{uint32(1+len(operands))<<16 | uint32(op)}, operands...)
}

// StringOperand returns the words of a literal string operand: its bytes,
// a terminating NUL, and NULs to a whole word.
func StringOperand(s string) []uint32 {
	return toWords(append([]byte(s), make([]byte, 4-len(s)%4)...))
}

// toWords reads whole little-endian words from b.
func toWords(b []byte) []uint32 {
	words := make([]uint32, len(b)/4)
	_, _ = binary.Decode(b[:4*len(words)], binary.LittleEndian, words) // exactly the words' bytes: never short
	return words
}

// Bytes returns words as a module's code.
func Bytes(words []uint32) []byte {
	b, _ := binary.Append(nil, binary.LittleEndian, words) // a []uint32 always encodes
	return b
}

// Package spirv reads SPIR-V compute modules: the one place in vkbench that
// knows what a module declares. Backends check a module with it before a
// driver sees it, the catalogue and the kernel manifests read workgroup
// sizes, bindings, push constants, specialization constants, shared memory
// and capabilities from it, and every one of them gets the same answer.
//
// # Basics
//
// Parse checks a module's structure and reads it; Entry finds a GLCompute
// entry point, and the Module's methods answer about it:
//
//	m, err := spirv.Parse(code)          // InvalidArgument if malformed
//	e, err := m.Entry("main")            // InvalidArgument if absent
//	wg, ok := m.WorkgroupSize(e, consts) // with constant_id -> value set
//	push, ok := m.PushConstantBytes(e)   // the block e uses, in bytes
//	for _, b := range m.Bindings(e) { ... }
//
// A module is parsed once: Parse remembers the last modules it read, by
// content, so a module that several layers check (the root package, a
// manifest, the backend) costs one reading.
//
// A tool that rewrites a module walks the same words: Words checks them
// as Parse does first, Instructions yields each instruction (Opcode, and
// the Op constants, name it), and Instruction, StringOperand and Bytes
// write a module back:
//
//	words, err := spirv.Words(code)
//	out := slices.Clone(spirv.Header(words))
//	for _, ins := range spirv.Instructions(words) {
//		if spirv.Opcode(ins) == spirv.OpTypeFloat { ... }
//		out = append(out, ins...)
//	}
//	code = spirv.Bytes(out)
//
// # Rules
//
// One rule for each fact, whoever asks:
//
//   - The workgroup size comes from the WorkgroupSize built-in when the
//     module decorates one (it overrides the rest), else from LocalSizeId,
//     else from a literal LocalSize; components made of specialization
//     constants take their values from the constants given, else their
//     defaults. A size the caller states (SpecializeWorkgroup: a Kernel's
//     WorkgroupSize, a manifest's "workgroup") must agree with each
//     component the module fixes and each constant given, and sets the
//     constants of the others; a module must declare a size, and no
//     component may be 0.
//   - Push-constant and shared-memory sizes are those of the blocks the
//     entry point uses (every block, before SPIR-V 1.4, whose entry points
//     do not list what they use): the end of the last member, with
//     ArrayStride, MatrixStride and Offset decorations; a bool takes 4
//     bytes; arrays sized by specialization constants take the values
//     given. A size that cannot be worked out is reported as unknown,
//     never guessed. A buffer's size (BufferBytes) is the same end of its
//     block, a runtime array that ends it counted empty; the push
//     constants' scalars (PushConstantFields) are found by the same
//     decorations.
//   - A constant computed from specialization constants (OpSpecConstantOp:
//     glslang's 2u * BK * (BM / 4u + 1u) or gl_WorkGroupSize.x * 4u) is
//     worked out, for array lengths and workgroup sizes alike, with the
//     integer and boolean operations Vulkan allows there, at the operands'
//     width (32 bits wrap as 32 bits); a division by zero, a shift past the
//     width, a float, a cycle or another operation leave it unknown.
//
// # Caveats
//
// Modules must be little-endian. Only what vkbench needs is read: the
// module's code is not validated as spirv-val would; a module that Parse
// accepts can still be refused by a driver, but never crash it for want of
// an instruction's words, a function's end or an entry point's function.
package spirv

// heaprec_call_on_stack(fn, arg, stack_top): fn(arg) on another stack
// (spare_stack.h). RBP keeps the caller's stack pointer while fn runs; the
// CFI says CFA = RBP + 16, so unwinders step from fn's frame back into the
// caller's frames.
	.text
	.p2align 4
	.globl heaprec_call_on_stack
	.hidden heaprec_call_on_stack
	.type heaprec_call_on_stack, @function
heaprec_call_on_stack:
	.cfi_startproc
	endbr64
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	movq %rdx, %rsp
	movq %rdi, %rax
	movq %rsi, %rdi
	callq *%rax
	movq %rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq %rbp
	.cfi_def_cfa_offset 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size heaprec_call_on_stack, .-heaprec_call_on_stack

	.section .note.GNU-stack,"",@progbits

// Matmul kernels for the baseline x86-64 ISA (the project's default flags).
#define XLA_MATMUL_KERNELS_FN BaselineMatMulKernels
#define XLA_MATMUL_ISA_NAME "baseline"
#include "backends/cpu/runtime/runtime_matmul_kernel.inc"

// Matmul kernels for AVX2+FMA (built with -mavx2 -mfma), with Eigen renamed
// so its AVX2 instances never merge with the baseline ones at link time.
#define Eigen xla_cpu_eigen_avx2
#define XLA_MATMUL_KERNELS_FN Avx2MatMulKernels
#define XLA_MATMUL_ISA_NAME "avx2"
#include "backends/cpu/runtime/runtime_matmul_kernel.inc"

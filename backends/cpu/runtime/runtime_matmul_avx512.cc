// Matmul kernels for AVX-512 (F/DQ/VL/BW, built with those flags), with Eigen
// renamed so its instances never merge with the other copies at link time.
#define Eigen xla_cpu_eigen_avx512
#define XLA_MATMUL_KERNELS_FN Avx512MatMulKernels
#define XLA_MATMUL_ISA_NAME "avx512"
#include "backends/cpu/runtime/runtime_matmul_kernel.inc"

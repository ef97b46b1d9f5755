"""PyTorch references for ops_bench's single-op figures.

The same ops on data of the same shapes and distributions (uniform in
[-1, 1], real and imaginary parts; not the same values as the C++ side):
  sort_f32_1M          torch.sort of f32[2^20] (values and indices)
  topk_f32_1Mx128_k8   torch.topk(x, 8, dim=-1) of f32[ROWS,128]
                       (--topk_rows, as ops_bench passes it)
  fft_c64_1M           torch.fft.fft of c64[2^20]
  rfft_f32_4096x1024   torch.fft.rfft(x, dim=-1) of f32[4096,1024]
Prints '# ...' comment lines and one '<name>_ms=<best ms>' line per op (best
of --reps runs after a warm-up run, each within a few seconds), or
'skip: <reason>' when torch is not importable. Threads are set to the
bench's count, for torch and for the OpenMP/OpenBLAS it loads.
"""
import argparse
import os
import sys
import time


def best_ms(fn, reps, budget_s=3.0):
    fn()
    best, spent = float("inf"), 0.0
    for i in range(reps):
        if i > 0 and spent >= budget_s:
            break
        start = time.perf_counter()
        fn()
        seconds = time.perf_counter() - start
        best, spent = min(best, seconds), spent + seconds
    return best * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--topk_rows", type=int, default=8192)
    args = parser.parse_args()
    # Read by OpenBLAS and OpenMP when torch loads them.
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    try:
        import torch
    except ImportError as e:
        print(f"skip: torch is not importable ({e})")
        return 0
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    def uniform(*shape, dtype=torch.float32):
        return torch.rand(*shape, dtype=dtype) * 2 - 1

    n = 1 << 20
    x_sort = uniform(n)
    x_topk = uniform(args.topk_rows, 128)
    x_fft = torch.complex(uniform(n), uniform(n))
    x_rfft = uniform(4096, 1024)
    print(f"# torch {torch.__version__}, torch.get_num_threads()={torch.get_num_threads()}, "
          f"topk operand f32[{args.topk_rows},128]")
    sys.stdout.flush()
    figures = [
        ("sort_f32_1M", lambda: torch.sort(x_sort)),
        ("topk_f32_1Mx128_k8", lambda: torch.topk(x_topk, 8, dim=-1)),
        ("fft_c64_1M", lambda: torch.fft.fft(x_fft)),
        ("rfft_f32_4096x1024", lambda: torch.fft.rfft(x_rfft, dim=-1)),
    ]
    for name, fn in figures:
        print(f"{name}_ms={best_ms(fn, args.reps):.4f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

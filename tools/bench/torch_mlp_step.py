"""PyTorch reference for cpu_bench's mlp_train_step figure.

The same SGD step as the bench's XLA computation: a 784-512-512-10 MLP with
ReLU, softmax cross-entropy (mean over the batch), batch 256, lr 0.01;
forward, autograd backward and an in-place update. Prints '# ...' comment
lines and one 'torch_ms=<best ms per step>' line, or 'skip: <reason>' when
torch is not importable.

Debian's torch calls the system libblas.so.3; tools/xla bench installs
OpenBLAS for it (the netlib fallback would make a strawman reference), and
its threads are set here to the bench's count, like torch's own.
"""
import argparse
import os
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    # Read by OpenBLAS and OpenMP when torch loads them.
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"skip: torch is not importable ({e})")
        return 0
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    batch, sizes, lr = 256, [784, 512, 512, 10], 0.01
    x = torch.rand(batch, sizes[0]) * 2 - 1
    labels = torch.randint(0, sizes[-1], (batch,))
    params = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        params.append(((torch.rand(fan_in, fan_out) * 2 - 1) * (1.0 / fan_in) ** 0.5).requires_grad_())
        params.append(torch.zeros(fan_out).requires_grad_())
    w1, b1, w2, b2, w3, b3 = params

    def step():
        h1 = F.relu(x @ w1 + b1)
        h2 = F.relu(h1 @ w2 + b2)
        loss = F.cross_entropy(h2 @ w3 + b3, labels)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss.item()

    for _ in range(args.warmup):
        step()
    best = float("inf")
    for _ in range(args.reps):
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
    blas = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    print(f"# torch {torch.__version__}, torch.get_num_threads()={torch.get_num_threads()}, libblas.so.3 -> {blas}")
    print(f"torch_ms={best * 1e3:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

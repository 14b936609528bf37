# C = A @ B, written as Triton users write a tuned kernel: the configs come from a host
# function that branches on the backend, the autotune key is the problem size, and a heuristic
# drops the K mask when K is a multiple of the K block.
import triton
import triton.language as tl


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def cuda_configs():
    configs = []
    for bm, bn, bk, warps, stages in [(128, 128, 32, 4, 3), (128, 64, 32, 4, 4),
                                      (64, 128, 32, 4, 4), (64, 64, 64, 4, 3)]:
        configs.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk,
                                      "GROUP_M": 8}, num_warps=warps, num_stages=stages))
    return configs


def other_configs():
    # CPUs and AMD GPUs: smaller tiles; num_stages means nothing there.
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 32, "GROUP_M": 4},
                          num_warps=4, num_stages=2)
            for bm in (32, 64) for bn in (32, 64)]


def get_autotune_config():
    return cuda_configs() if is_cuda() else other_configs()


@triton.autotune(configs=get_autotune_config(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr, EVEN_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * blocks_n
    group = pid // per_group
    first_m = group * GROUP_M
    rows_in_group = min(blocks_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % rows_in_group
    pid_n = (pid % per_group) // rows_in_group
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_tile)
            b = tl.load(b_tile)
        else:
            left = K - k * BLOCK_K
            a = tl.load(a_tile, mask=rk[None, :] < left, other=0.0)
            b = tl.load(b_tile, mask=rk[:, None] < left, other=0.0)
        acc += tl.dot(a, b)
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_tile = c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))

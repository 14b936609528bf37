# The zoo's fused attention forward: online softmax over key blocks (exp2 with the scale folded
# in), causal or not, head dim 64 or 128; f16 or bf16 inputs, f32 accumulation. Key blocks wholly
# inside the sequence (and, causal, wholly left of the diagonal) run without a mask; only the
# last ones (the diagonal's, or the sequence's ragged end) compute one.
import triton
import triton.language as tl


@triton.jit
def _attend(acc, l_i, m_i, q, K, V, base, stride_qm, stride_qk, N_CTX, qk_scale, offs_m, lo, hi,
            HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
            MASKED: tl.constexpr):
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        k_ptrs = K + base + cols[None, :] * stride_qm + offs_d[:, None] * stride_qk
        v_ptrs = V + base + cols[:, None] * stride_qm + offs_d[None, :] * stride_qk
        if MASKED:
            k = tl.load(k_ptrs, mask=cols[None, :] < N_CTX, other=0.0)
        else:
            k = tl.load(k_ptrs)
        qk = tl.dot(q, k)
        if MASKED:
            valid = cols[None, :] < N_CTX
            if CAUSAL:
                valid = valid & (offs_m[:, None] >= cols[None, :])
            qk = tl.where(valid, qk * qk_scale, -1.0e6)
        else:
            qk = qk * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        if MASKED:
            v = tl.load(v_ptrs, mask=cols[:, None] < N_CTX, other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attention(Q, K, V, Out, sm_scale, stride_qz, stride_qh, stride_qm, stride_qk, N_CTX,
             H: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    base = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    # [0, lo): whole key blocks every row of this block sees; [lo, hi): the rest, masked.
    if CAUSAL:
        lo = start_m * BLOCK_M // BLOCK_N * BLOCK_N
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        lo = N_CTX // BLOCK_N * BLOCK_N
        hi = N_CTX
    acc, l_i, m_i = _attend(acc, l_i, m_i, q, K, V, base, stride_qm, stride_qk, N_CTX, qk_scale,
                            offs_m, 0, lo, HEAD_DIM, BLOCK_N, CAUSAL, False)
    acc, l_i, m_i = _attend(acc, l_i, m_i, q, K, V, base, stride_qm, stride_qk, N_CTX, qk_scale,
                            offs_m, lo, hi, HEAD_DIM, BLOCK_N, CAUSAL, True)
    acc = acc / l_i[:, None]
    o_ptrs = Out + base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    tl.store(o_ptrs, acc.to(Out.type.element_ty), mask=offs_m[:, None] < N_CTX)

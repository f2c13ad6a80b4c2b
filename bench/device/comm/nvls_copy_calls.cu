// How fast NVLS's scatter and gather warps copy when they copy head by head, one NCCL chunk per
// call: the pattern of prims_simple.h ScatterGatherOp (NCCL 2.18-2.28), whose loop over the heads
// calls reduceCopy once per head's chunk with no barrier between calls, then joins the group's
// warps (barrierAny), fences (__threadfence_system) and posts once per loop (postPeer).
//
// Each CTA (one channel) copies `bytes_per_cta` with `warps` warps in loops of `heads` calls of
// `chunk` bytes. A call splits its chunk as NCCL's reduceCopyPacks does: hunks of Unroll x 32
// threads x 16 B (8 loads in flight per thread, ncclCollUnroll on sm80+), warp w taking hunks w,
// w + warps, ... Modes:
//   stream   one call of the whole region (the streaming rate nvls.warp_copy_bandwidth is)
//   calls    calls of `chunk` bytes, no barrier or fence between loops
//   loops    calls of `chunk`, and per loop a barrier of the group, a system fence and a flag store
// Direction: "scatter" reads a streaming input and writes a ring of 8 loops (the NVLS buffer's
// NCCL_STEPS slots), "gather" reads the ring and writes a streaming output.
// Prints one JSON line per case: microseconds per launch, GB/s per CTA, the same rate over the
// stream mode's of the same warps, and `model`: what one extra round of the group's loads per call
// would give, chunk / (chunk + warps x 4 KiB) (ruled out: docs/accuracy.md, nvls.chunk_latency).
//
// Build and run (device machine, kind nvidia-h200):
//   nvcc -O3 -arch=sm_90 -o /tmp/nvls_copy_calls bench/device/comm/nvls_copy_calls.cu && /tmp/nvls_copy_calls > OUT.jsonl
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/cuda_check.cuh"

constexpr int kUnroll = 8;
constexpr int kHunk = kUnroll * 32;  // int4s per hunk: 4 KiB
constexpr int kRingLoops = 8;        // NCCL_STEPS

// One reduceCopy of n16 int4s by `warps` warps: hunks interleaved over the warps.
__device__ __forceinline__ void copy_call(const int4* __restrict__ src, int4* __restrict__ dst, long n16, int warp,
                                          int warps, int lane) {
  for (long h = static_cast<long>(warp) * kHunk; h < n16; h += static_cast<long>(warps) * kHunk) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const long i = h + u * 32 + lane;
      if (i < n16) v[u] = src[i];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const long i = h + u * 32 + lane;
      if (i < n16) dst[i] = v[u];
    }
  }
}

// mode 0 stream, 1 calls, 2 loops; gather: read the ring, write the stream.
__global__ void nvls_copy(const int4* __restrict__ stream_in, int4* __restrict__ stream_out, int4* __restrict__ ring,
                          long n16_per_cta, long chunk16, int heads, int warps, int mode, int gather,
                          volatile unsigned long long* flags) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= warps) return;
  const int4* in = stream_in + blockIdx.x * n16_per_cta;
  int4* out = stream_out + blockIdx.x * n16_per_cta;
  const long loop16 = chunk16 * heads;
  int4* my_ring = ring + blockIdx.x * loop16 * kRingLoops;
  if (mode == 0) {
    copy_call(in, out, n16_per_cta, warp, warps, lane);
    return;
  }
  unsigned long long step = 0;
  for (long off = 0; off < n16_per_cta; off += loop16, ++step) {
    int4* slot = my_ring + (step % kRingLoops) * loop16;
    for (int h = 0; h < heads; ++h) {
      const long o = off + h * chunk16;
      if (o >= n16_per_cta) break;
      const long n = min(chunk16, n16_per_cta - o);
      if (gather)
        copy_call(slot + h * chunk16, out + o, n, warp, warps, lane);
      else
        copy_call(in + o, slot + h * chunk16, n, warp, warps, lane);
    }
    if (mode == 2) {
      asm volatile("bar.sync 1, %0;" ::"r"(warps * 32));  // the group's barrier (barrierAny)
      if (threadIdx.x == 0) {
        __threadfence_system();  // postPeer with a fence
        flags[blockIdx.x] = step + 1;
      }
    }
  }
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const long bytes_per_cta = 8L << 20;
  const int max_ctas = 24, heads = 8;
  const long max_chunk = 512L << 10;
  int4 *in = nullptr, *out = nullptr, *ring = nullptr;
  unsigned long long* flags = nullptr;
  CHECK(cudaMalloc(&in, bytes_per_cta * max_ctas));
  CHECK(cudaMalloc(&out, bytes_per_cta * max_ctas));
  CHECK(cudaMalloc(&ring, max_chunk * heads * kRingLoops * max_ctas));
  CHECK(cudaMalloc(&flags, sizeof(unsigned long long) * max_ctas));
  CHECK(cudaMemset(in, 1, bytes_per_cta * max_ctas));
  CHECK(cudaMemset(ring, 1, max_chunk * heads * kRingLoops * max_ctas));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  const int reps = 20;
  auto time = [&](int ctas, long chunk, int warps, int mode, int gather) {
    const long n16 = bytes_per_cta / 16, c16 = chunk / 16;
    for (int i = 0; i < 2; ++i) nvls_copy<<<ctas, 640>>>(in, out, ring, n16, c16, heads, warps, mode, gather, flags);
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < reps; ++i) nvls_copy<<<ctas, 640>>>(in, out, ring, n16, c16, heads, warps, mode, gather, flags);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1000.0 / reps;
  };
  std::printf("{\"device\": \"%s\", \"sms\": %d}\n", prop.name, prop.multiProcessorCount);
  const char* mode_name[] = {"stream", "calls", "loops"};
  for (int gather : {0, 1}) {
    for (int ctas : {16, 24}) {
      for (int warps : {5, 7, 8}) {
        const double stream_us = time(ctas, 64L << 10, warps, 0, gather);
        for (long chunk : {4L << 10, 8L << 10, 16L << 10, 32L << 10, 64L << 10, 128L << 10, 256L << 10, 512L << 10}) {
          for (int mode : {1, 2}) {
            const double us = time(ctas, chunk, warps, mode, gather);
            std::printf(
                "{\"dir\": \"%s\", \"ctas\": %d, \"warps\": %d, \"chunk\": %ld, \"mode\": \"%s\", \"us\": %.3f, "
                "\"gbps_per_cta\": %.3f, \"of_stream\": %.4f, \"model\": %.4f}\n",
                gather ? "gather" : "scatter", ctas, warps, chunk, mode_name[mode], us, bytes_per_cta / (us * 1e3),
                stream_us / us, double(chunk) / (chunk + warps * 4096.0));
            std::fflush(stdout);
          }
        }
        std::printf(
            "{\"dir\": \"%s\", \"ctas\": %d, \"warps\": %d, \"mode\": \"stream\", \"us\": %.3f, \"gbps_per_cta\": "
            "%.3f, \"gbps_per_warp\": %.3f}\n",
            gather ? "gather" : "scatter", ctas, warps, stream_us, bytes_per_cta / (stream_us * 1e3),
            bytes_per_cta / (stream_us * 1e3) / warps);
      }
    }
  }
  return 0;
}

// How fast a group of warps of one CTA copies local GPU memory to local GPU memory, the way NCCL's
// Simple primitives copy (16-byte loads and stores per thread, several in flight): the rate of the
// scatter and gather stages of NCCL's NVLS kernels (src/device/all_reduce.h, RunWorkColl NVLS:
// on one node the scatter warps copy the input into the local NVLS buffer, the gather warps copy
// the reduced result out of it; 8 and 7 warps of a 640-thread CTA with 8 ranks), one CTA per
// channel, all channels at once.
//
// For every (CTAs, warps per CTA, unroll, bytes per CTA) it times `reps` back-to-back launches with
// CUDA events and prints one JSON line: microseconds per launch and GB/s per CTA and in total
// (bytes copied, not bytes read plus written). An empty kernel's time per launch is printed first,
// so the copy's own time is `us - empty_us`.
//
// Build and run (device machine, kind nvidia-h200):
//   nvcc -O3 -arch=sm_90 -o /tmp/cta_copy_rate bench/device/comm/cta_copy_rate.cu && /tmp/cta_copy_rate > OUT.jsonl
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../common/cuda_check.cuh"

// Threads [0, threads) of each CTA copy that CTA's `n16` 16-byte words; the rest of the CTA idles
// (as NCCL's other warp groups would be doing other work).
template <int Unroll>
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, long n16, int threads) {
  if (threadIdx.x >= threads) return;
  const int4* s = src + blockIdx.x * n16;
  int4* d = dst + blockIdx.x * n16;
  const long step = static_cast<long>(threads) * Unroll;
  for (long base = threadIdx.x; base < n16; base += step) {
    int4 v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      const long i = base + static_cast<long>(u) * threads;
      if (i < n16) v[u] = s[i];
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      const long i = base + static_cast<long>(u) * threads;
      if (i < n16) d[i] = v[u];
    }
  }
}

__global__ void empty_kernel() {}

template <int Unroll>
float time_copy(const int4* src, int4* dst, int ctas, int warps, long bytes_per_cta, int reps, cudaEvent_t a,
                cudaEvent_t b) {
  const long n16 = bytes_per_cta / 16;
  const int threads = warps * 32;
  for (int i = 0; i < 3; ++i) copy_kernel<Unroll><<<ctas, 640>>>(src, dst, n16, threads);
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) copy_kernel<Unroll><<<ctas, 640>>>(src, dst, n16, threads);
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms * 1000.0f / reps;
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const long max_bytes_per_cta = 8L << 20;
  const int max_ctas = 32;
  int4 *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, max_bytes_per_cta * max_ctas));
  CHECK(cudaMalloc(&dst, max_bytes_per_cta * max_ctas));
  CHECK(cudaMemset(src, 1, max_bytes_per_cta * max_ctas));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  const int reps = 50;
  for (int i = 0; i < 3; ++i) empty_kernel<<<16, 640>>>();
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) empty_kernel<<<16, 640>>>();
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float empty_ms = 0;
  CHECK(cudaEventElapsedTime(&empty_ms, a, b));
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"empty_us\": %.3f}\n", prop.name, prop.multiProcessorCount,
              empty_ms * 1000.0 / reps);
  const std::vector<int> ctas_list{1, 16, 24, 32};
  const std::vector<int> warps_list{4, 5, 7, 8, 16, 20};
  const std::vector<long> bytes_list{128L << 10, 1L << 20, 8L << 20};
  for (int unroll : {4, 8}) {
    for (int ctas : ctas_list) {
      for (int warps : warps_list) {
        for (long bytes : bytes_list) {
          const float us = unroll == 4 ? time_copy<4>(src, dst, ctas, warps, bytes, reps, a, b)
                                       : time_copy<8>(src, dst, ctas, warps, bytes, reps, a, b);
          std::printf(
              "{\"unroll\": %d, \"ctas\": %d, \"warps\": %d, \"bytes_per_cta\": %ld, \"us\": %.3f, "
              "\"gbps_per_cta\": %.2f, \"gbps_total\": %.2f}\n",
              unroll, ctas, warps, bytes, us, bytes / (us * 1e3), bytes * double(ctas) / (us * 1e3));
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}

// What one host thread pays to issue NCCL point-to-point operations: a back-to-back loop of
// groups of k sends and k receives (an all-to-all's shape: 2 (n - 1) operations per call on n
// ranks), against a loop of single all-reduces, on one GPU (a 1-rank communicator, so every send
// goes to the rank itself: NCCL's host path per operation, without a network's proxy work).
//   nvcc -O3 -arch=sm_90 -o /tmp/nccl_p2p_issue_cost bench/device/comm/nccl_p2p_issue_cost.cu \
//     -I$NCCL_INCLUDE -L$NCCL_LIB -lnccl && /tmp/nccl_p2p_issue_cost > OUT.jsonl
// Per case, one JSON line: `loop_us`, the wall time per call of the loop (nccl-tests' timing: the
// host queues calls back to back and synchronises once at the end); `api_us`, the host time spent
// inside the calls (ncclGroupStart to ncclGroupEnd); `gpu_us`, CUDA events around the loop, per
// call. Where `api_us` grows with k while the GPU keeps up, the host's issue cost per operation is
// the slope. Why: a 64-rank all-to-all in an NVL72 rack (126 operations per call) takes ~17 us
// more per call than the model's device time and host loop at 512 KiB - 2 MiB.
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "../common/cuda_check.cuh"

#define NCCL_CHECK(call)                                                                          \
  do {                                                                                            \
    ncclResult_t r_ = (call);                                                                     \
    if (r_ != ncclSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(r_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

using Clock = std::chrono::steady_clock;

struct Result {
  double loop_us, api_us, gpu_us;
};

// One call: k sends and k receives to the rank itself (kind "p2p"), or k all-reduces (kind
// "allreduce"), each of `bytes`, from distinct slices of the buffers.
static void one_call(ncclComm_t comm, cudaStream_t s, char* sbuf, char* rbuf, size_t bytes, int k, bool p2p) {
  NCCL_CHECK(ncclGroupStart());
  for (int i = 0; i < k; ++i) {
    if (p2p) {
      NCCL_CHECK(ncclSend(sbuf + i * bytes, bytes, ncclInt8, 0, comm, s));
      NCCL_CHECK(ncclRecv(rbuf + i * bytes, bytes, ncclInt8, 0, comm, s));
    } else {
      NCCL_CHECK(ncclAllReduce(sbuf + i * bytes, rbuf + i * bytes, bytes / 4, ncclFloat, ncclSum, comm, s));
    }
  }
  NCCL_CHECK(ncclGroupEnd());
}

static Result run(ncclComm_t comm, cudaStream_t s, char* sbuf, char* rbuf, size_t bytes, int k, bool p2p, int iters) {
  for (int i = 0; i < iters / 10 + 5; ++i) one_call(comm, s, sbuf, rbuf, bytes, k, p2p);
  CHECK(cudaStreamSynchronize(s));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  double api = 0;
  auto t0 = Clock::now();
  CHECK(cudaEventRecord(e0, s));
  for (int i = 0; i < iters; ++i) {
    auto a = Clock::now();
    one_call(comm, s, sbuf, rbuf, bytes, k, p2p);
    api += std::chrono::duration<double, std::micro>(Clock::now() - a).count();
  }
  CHECK(cudaEventRecord(e1, s));
  CHECK(cudaStreamSynchronize(s));
  double wall = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  return {wall / iters, api / iters, 1000.0 * ms / iters};
}

int main() {
  CHECK(cudaSetDevice(0));
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  ncclComm_t comm;
  NCCL_CHECK(ncclCommInitRank(&comm, 1, id, 0));
  int version = 0;
  NCCL_CHECK(ncclGetVersion(&version));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int kmax = 128;
  const size_t max_bytes = 64 << 10;
  char *sbuf, *rbuf;
  CHECK(cudaMalloc(&sbuf, kmax * max_bytes));
  CHECK(cudaMalloc(&rbuf, kmax * max_bytes));
  std::printf("{\"nccl_version\": %d}\n", version);
  std::fflush(stdout);
  for (int round = 0; round < 3; ++round) {
    for (bool p2p : {true, false}) {
      for (size_t bytes : {size_t(1024), size_t(64 << 10)}) {
        for (int k : {1, 2, 4, 8, 16, 32, 63, 128}) {
          if (!p2p && k > 16) continue;  // grouped all-reduces are not what this measures
          Result r = run(comm, s, sbuf, rbuf, bytes, k, p2p, k >= 32 ? 500 : 2000);
          std::printf(
              "{\"round\": %d, \"kind\": \"%s\", \"k\": %d, \"ops\": %d, \"bytes\": %zu, \"loop_us\": %.3f, "
              "\"api_us\": %.3f, \"gpu_us\": %.3f}\n",
              round, p2p ? "p2p" : "allreduce", k, p2p ? 2 * k : k, bytes, r.loop_us, r.api_us, r.gpu_us);
          std::fflush(stdout);
        }
      }
    }
  }
  NCCL_CHECK(ncclCommDestroy(comm));
  return 0;
}

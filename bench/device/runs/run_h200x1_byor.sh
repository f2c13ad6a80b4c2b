#!/bin/bash
# The device call behind the bring-your-own-run fixtures (kind nvidia-h200): a Kineto trace of the
# calibration decoder's plain step, nccl-tests built from source against the NCCL of the pip package
# nvidia-nccl-cu13 and run with -J, and NCCL Inspector built from source and run under nccl-tests.
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_byor.sh
# with the sources copied beside this script as nccl-tests/ (NVIDIA/nccl-tests a0b82b2, version 2.19.6)
# and inspector-src/ (NVIDIA/nccl 5067397, plugins/profiler/inspector): the machine reaches no network.
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; R=/tmp/res; mkdir -p $R/inspector
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
pack() { (cd $R && tar czf "$OUT/results.tgz" .); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nproc; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv;
  nvcc --version | tail -2; python3 -m pip show nvidia-nccl-cu13 2>/dev/null | head -3; g++ --version | head -1; } >$R/info.txt 2>&1
cat $R/info.txt
echo "== kineto"; timeout 240 python3 $HERE/steps/kineto_step.py $R 2>&1 | tail -5; pack
NCCL_PY=$(python3 -c "import nvidia, os; print([p for p in nvidia.__path__][0])")
NCCL_H=$(find $NCCL_PY -name nccl.h | head -1); NCCL_SO=$(find $NCCL_PY -name 'libnccl.so*' | head -1)
echo "nccl.h $NCCL_H libnccl $NCCL_SO" | tee -a $R/info.txt
NH=/tmp/ncclhome; mkdir -p $NH/lib; ln -sf $(dirname $NCCL_H) $NH/include; ln -sf $NCCL_SO $NH/lib/libnccl.so; ln -sf $NCCL_SO $NH/lib/libnccl.so.2
export LD_LIBRARY_PATH=$NH/lib:${LD_LIBRARY_PATH:-}
echo "== nccl-tests build"; cp -r $HERE/nccl-tests /tmp/nt; cd /tmp/nt
/usr/bin/time -f "nccl-tests build %e s" timeout 300 make -j16 MPI=0 NCCL_HOME=$NH NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" src.build >$R/nccl_tests_build.log 2>&1; tail -3 $R/nccl_tests_build.log
for op in all_reduce all_gather; do
  timeout 60 ./build/${op}_perf -b 8 -e 1G -f 4 -g 1 -w 5 -n 20 -J $R/nccl_tests_${op}.json >$R/nccl_tests_${op}.txt 2>&1; echo "$op rc=$?"; tail -4 $R/nccl_tests_${op}.txt
done; pack
echo "== inspector build"; cp -r $HERE/inspector-src /tmp/insp; cd /tmp/insp
timeout 120 make -j16 >$R/inspector_build.log 2>&1; echo "rc=$?"; tail -3 $R/inspector_build.log
if [ -f libnccl-profiler-inspector.so ]; then
  NCCL_PROFILER_PLUGIN=/tmp/insp/libnccl-profiler-inspector.so NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR=/tmp/inspdump \
  NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0 NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING=0 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,PROFILE \
    timeout 60 /tmp/nt/build/all_reduce_perf -b 1M -e 64M -f 4 -g 1 -w 2 -n 5 >$R/inspector_run.txt 2>&1; echo "insp rc=$?"
  grep -i -E "inspector|profiler" $R/inspector_run.txt | head -8
  find /tmp/inspdump -type f | head; i=0; for f in $(find /tmp/inspdump -type f); do cp $f $R/inspector/inspector_$i.jsonl; i=$((i+1)); done
  wc -l $R/inspector/* 2>/dev/null; head -c 1500 $R/inspector/inspector_0.jsonl 2>/dev/null
fi
pack; ls -la $R; cp $R/info.txt $OUT/

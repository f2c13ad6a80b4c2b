#!/bin/bash
# A commsim sweep split over a Slurm job array: task i runs shard i of 4 and writes its rows, one
# at a time, to results/shard-00i.csv. Shards after the first write no header, so once every
# task has finished
#   merge: cat results/shard-*.csv > results/sweep.csv
# gives, byte for byte, the CSV one unsharded `commsim sweep` writes (tests/python/test_manifests.py
# runs this script locally for each index and checks it). A task requeued or restarted after a
# time limit continues where it stopped (--resume); --fail-on-error fails a task whose shard has a
# failed point. Submit from the repository (or any folder holding scenarios/):
#   sbatch docs/sweep-array.sh
# Keep --array's size equal to N below. COMMSIM names the program (default: commsim on PATH).
#SBATCH --job-name=commsim-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=00:30:00
#SBATCH --requeue
#SBATCH --output=results/slurm-%A_%a.out
set -euo pipefail
N=4
mkdir -p results
"${COMMSIM:-commsim}" sweep scenarios/seeds/p4d_4pod_1gpu_efa.toml \
  --vary cluster.params.efa.efficiency.simple=0.5,0.6,0.7 \
  --vary training.cpu_threads=1,2,4,12 \
  --vary placement.efa_plugin_ok=true,false \
  --jobs "${SLURM_CPUS_PER_TASK:-2}" \
  --shard "$SLURM_ARRAY_TASK_ID/$N" \
  --csv "results/shard-$(printf %03d "$SLURM_ARRAY_TASK_ID").csv" \
  --resume --fail-on-error

#!/bin/bash
# `rig auto` over a folder of meshes as a Slurm job array, in the same container
# image as the Kubernetes job (deploy/k8s-indexed-job.yaml), run with Apptainer:
#
#   docker build -t rigkit:latest .
#   apptainer build rigkit.sif docker-daemon://rigkit:latest
#   sbatch deploy/slurm-array.sh            # IN, OUT and IMAGE may be set in the environment
#
# Each array task rigs every SHARDS-th mesh: --shard auto/SHARDS reads
# SLURM_ARRAY_TASK_ID (minus SLURM_ARRAY_TASK_MIN). All tasks write into one folder;
# resubmitting skips finished meshes. Keep the array size and SHARDS equal
# (deploy_test.go checks it).
#SBATCH --job-name=rigkit-auto
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=24:00:00
#SBATCH --output=rigkit-auto-%A_%a.log
set -euo pipefail

SHARDS=8
IN=${IN:-/data/meshes}
OUT=${OUT:-/data/rigged}
IMAGE=${IMAGE:-rigkit.sif}

# Apptainer passes the environment (SLURM_ARRAY_TASK_ID) into the container and
# runs the image's entry point, rig.
srun apptainer run --bind "$(dirname "$IN")","$(dirname "$OUT")" "$IMAGE" \
  auto "$IN" --out "$OUT" --shard "auto/$SHARDS" --workers "${SLURM_CPUS_PER_TASK:-1}" --quiet

#!/usr/bin/env bash
# The Goodhart test of the rewards: from the shipped checkpoint, GRPO of one fixed
# budget (seed, steps, meshes, group, lr, KL) per reward combination given, then
# the truth on held-out files before and after each run: skeleton CD-J2J, joint
# count and the mean score of the model's rigs under every reward version's
# weights (rig eval --task rig, method model), and the skin deformation error of
# the model's skin tokens on the artist's skeleton (--task skin). A reward that training
# pushes against the truth shows here where its rank agreement does not.
#
#   tools/goodhart/run.sh v4 v3        # each argument as `rig grpo --reward` takes it
#   tools/goodhart/run.sh v4 'v4@--skin=tokens,--skin-credit'   # REWARD@FLAGS: more rig grpo flags
#
# Settings come from the environment (defaults below); a rerun with the same
# settings skips what is already under OUT, so adding a version later (v5) trains
# and measures only that one. The summary goes to OUT/summary.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

RIG=${RIG:-/tmp/goodhart-rig}
DATA=${DATA:-../shared/data}
OUT=${OUT:-/tmp/goodhart}
INIT=${INIT:-rigmodel/checkpoints/tokenrig.safetensors}
STEPS=${STEPS:-60}
MESHES=${MESHES:-2}
GROUP=${GROUP:-8}
LR=${LR:-3e-5}
KL=${KL:-1}
SEED=${SEED:-1}
LIMIT=${LIMIT:-0}           # held-out files of the skeleton and rig tasks (0: all 106)
SKIN_LIMIT=${SKIN_LIMIT:-0} # held-out files of the skin task (0: all)
NICE=(nice -n "${NICE_LEVEL:-10}")

if [ $# -lt 1 ]; then
	echo "usage: $0 REWARD... (a reward version such as v4 or v3, or name=w,... as rig grpo --reward takes it)" >&2
	exit 2
fi
if [ -n "${REBUILD:-}" ] || [ ! -x "$RIG" ]; then
	go build -o "$RIG" ./cmd/rig
fi
mkdir -p "$OUT"
stamp="init=$INIT steps=$STEPS meshes=$MESHES group=$GROUP lr=$LR kl=$KL seed=$SEED limit=$LIMIT skin_limit=$SKIN_LIMIT data=$DATA"
if [ -f "$OUT/settings" ] && [ "$(cat "$OUT/settings")" != "$stamp" ]; then
	echo "$OUT holds a run with other settings ($(cat "$OUT/settings")); remove it or set OUT" >&2
	exit 2
fi
echo "$stamp" >"$OUT/settings"

# dirname_of turns a reward spec into a folder name.
dirname_of() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }

# train SPEC: GRPO under that reward (SPEC is REWARD or REWARD@FLAG,FLAG...,
# the flags passed on to rig grpo); --resume makes a rerun continue or skip it.
train() {
	local d="$OUT/$(dirname_of "$1")" reward=${1%%@*} flags=()
	if [[ $1 == *@* ]]; then
		IFS=, read -r -a flags <<<"${1#*@}"
	fi
	mkdir -p "$d"
	"${NICE[@]}" "$RIG" grpo --data "$DATA" --model "$INIT" --out "$d/grpo.safetensors" --reward "$reward" \
		--steps "$STEPS" --meshes "$MESHES" --group "$GROUP" --lr "$LR" --kl "$KL" --seed "$SEED" \
		"${flags[@]}" --resume --quiet >"$d/grpo.out" 2>&1
}

# measure NAME CKPT SKIN_METHOD: the held-out reports of one checkpoint, each
# skipped when its JSON is already there. The rig task's `model` rigs carry the
# skeletons `rig eval --task skeleton` calls `tokens` (voted, masked as rig auto
# masks them; the same CD-J2J on all 106 held-out files), so it gives CD-J2J and
# joints beside the scores without sampling the skeletons twice.
measure() {
	local d="$OUT/$1" ckpt=$2 skin=$3
	mkdir -p "$d"
	local common=(--data "$DATA" --split held-out --quiet)
	[ -f "$d/rig.json" ] || "${NICE[@]}" "$RIG" eval "${common[@]}" --task rig --limit "$LIMIT" \
		--method "model=$ckpt,model" --out "$d/rig.md" >"$d/rig.out" 2>&1
	[ -f "$d/skin.json" ] || "${NICE[@]}" "$RIG" eval "${common[@]}" --task skin --limit "$SKIN_LIMIT" \
		--leak=false --workers 1 --method "$skin" --out "$d/skin.md" >"$d/skin.out" 2>&1
}

start=$(date +%s)
# Every run trains and is then measured in the background while the starting
# checkpoint is measured; its skin method is the shipped model's skin tokens
# (`tokens`), so that the paired skin reports below can merge it with each run's
# (`model`).
pids=()
measure before "$INIT" tokens &
pids+=($!)
for spec in "$@"; do
	d=$(dirname_of "$spec")
	(
		train "$spec"
		echo "$spec: grpo done at $(($(date +%s) - start)) s" >>"$OUT/wall.txt"
		measure "$d" "$OUT/$d/grpo.safetensors" "model=$OUT/$d/grpo.safetensors"
	) &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p"
done
for spec in "$@"; do
	d=$(dirname_of "$spec")
	"$RIG" eval --task skin --from "$OUT/before/skin.json" --from "$OUT/$d/skin.json" --baseline tokens \
		--out "$OUT/$d/skin-paired.md" >/dev/null
done
echo "all: $(($(date +%s) - start)) s" >>"$OUT/wall.txt"
python3 tools/goodhart/summary.py "$OUT" "$@" >"$OUT/summary.md"
cat "$OUT/summary.md"

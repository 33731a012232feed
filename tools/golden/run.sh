#!/usr/bin/env bash
# tools/golden/run.sh RIG OUT: runs `rig auto`, `skin`, `animate` and `convert` on the
# bundled samples and on the first five files of each category of ../shared/data,
# and writes OUT/sums.txt: the SHA-256 of every written GLB and of every JSON report
# with its timing fields removed. Two builds whose sums.txt are equal write the same
# files: `diff A/sums.txt B/sums.txt` is the check a refactor must pass.
set -euo pipefail
rig=$(realpath "$1"); out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
data="$root/../shared/data"
rm -rf "$out"; mkdir -p "$out/in" "$out/auto" "$out/skin" "$out/anim" "$out/conv"
cp "$root"/assets/samples/*.glb "$out/in/"
if [ -f "$data/manifest.jsonl" ]; then
  python3 - "$data" "$out/in" <<'PY'
import json, os, shutil, sys, collections
data, dst = sys.argv[1], sys.argv[2]
seen = collections.Counter()
for line in open(os.path.join(data, "manifest.jsonl")):
    row = json.loads(line)
    cat = row.get("category", "")
    if seen[cat] >= 5:
        continue
    seen[cat] += 1
    name = cat.replace("/", "_").replace(" ", "_") + "-" + os.path.basename(row["file"])
    shutil.copy(os.path.join(data, row["file"]), os.path.join(dst, name))
PY
fi
"$rig" auto "$out/in" --out "$out/auto" --workers 1 --quiet >/dev/null 2>"$out/auto.log" || true
for f in "$out"/in/*; do
  b=$(basename "${f%.*}")
  "$rig" skin "$f" --method geodesic --out "$out/skin/$b.glb" >/dev/null 2>>"$out/skin.log" || true
  "$rig" convert "$f" "$out/conv/$b.glb" >/dev/null 2>>"$out/conv.log" || true
done
for f in "$out"/auto/*.glb; do
  b=$(basename "${f%.glb}")
  "$rig" animate "$f" --clip walk --out "$out/anim/$b.glb" >/dev/null 2>>"$out/anim.log" || true
done
cd "$out"
{
  for f in auto/*.glb skin/*.glb anim/*.glb conv/*.glb; do [ -f "$f" ] && sha256sum "$f"; done
  for f in auto/*.json; do
    python3 - "$f" <<'PY'
import json, os, sys, hashlib
out = os.getcwd()
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items()
                if k not in ("timings_ms",) and not any(t in k.lower() for t in ("time", "second", "_ms", "per_second", "wall_s", "cpu_s", "elapsed", "duration", "started", "finished", "host", "version"))}
    if isinstance(v, list):
        return [strip(x) for x in v]
    if isinstance(v, str):
        return v.replace(out, "OUT")
    return v
d = strip(json.load(open(sys.argv[1])))
print(hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest() + "  " + sys.argv[1])
PY
  done
} > sums.txt
wc -l < sums.txt

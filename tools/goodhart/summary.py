#!/usr/bin/env python3
"""The Goodhart test's table from the reports tools/goodhart/run.sh writes.

    python3 tools/goodhart/summary.py OUT REWARD...

For the starting checkpoint (OUT/before) and each GRPO run (OUT/<reward>): held-out
skeleton CD-J2J, joint count and the mean score of the model's rigs under every
reward version's weights (`rig eval --task rig`, method model), and the skin
deformation error (`--task skin`). Each run is then
compared with the start file by file: the mean of after − before with a 95%
percentile bootstrap interval over files (10,000 resamples, seeded), and the files
that went down / up. The skin comparisons are eval's own (`rig eval --from ...
--baseline tokens`, OUT/<reward>/skin-paired.json). Standard library only.
"""

import json
import os
import random
import re
import sys

RESAMPLES = 10000


def load(path):
    with open(path) as f:
        return json.load(f)


def folder(spec):
    """The folder run.sh keeps a reward spec's run in."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", spec)


def per_file(rows, method, value):
    """file -> value for the rows of method that carry one."""
    out = {}
    for r in rows:
        if r.get("method") == method and not r.get("error"):
            v = value(r)
            if v is not None:
                out[r["file"]] = v
    return out


def paired(before, after, seed=1):
    """Mean of after − before over the files both have, its 95% bootstrap
    interval, and the files lower / higher after."""
    files = sorted(set(before) & set(after))
    d = [after[f] - before[f] for f in files]
    if not d:
        return None
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(d) for _ in d) / len(d) for _ in range(RESAMPLES))
    return {
        "files": len(d),
        "mean": sum(d) / len(d),
        "low": means[RESAMPLES * 25 // 1000],
        "high": means[RESAMPLES * 975 // 1000 - 1],
        "lower": sum(x < 0 for x in d),
        "higher": sum(x > 0 for x in d),
    }


def checkpoint_figures(d):
    """The per-file values and the means of one checkpoint's two reports."""
    rig, skin = (load(os.path.join(d, n + ".json")) for n in ("rig", "skin"))
    model = rig["summary"]["model"]
    skins = {x["split"]: x["deform_mean"] for x in skin["summaries"] if x["method"] != "ground_truth"}
    rows = rig["rows"]
    method = "model:tokenrig"
    return {
        "cd": per_file(rows, method, lambda r: 100 * r["skeleton"]["cd_j2j"] if r.get("skeleton") else None),
        "joints": per_file(rows, method, lambda r: r["skeleton"]["pred_joints"] if r.get("skeleton") else None),
        "score": per_file(rows, method, lambda r: r.get("score")),
        "skin": per_file(skin["results"], skin["methods"][0], lambda r: r["metrics"]["deform_mean"] if r.get("metrics") else None),
        "means": {
            "CD-J2J ×10⁻²": 100 * model["cd_j2j"],
            "joints": model["pred_joints"],
            **{f"skin error ×100, {k}": v for k, v in sorted(skins.items())},
            **{f"mean score, {v} weights": x for v, x in sorted(model.get("version_scores", {}).items())},
            "rigs (files)": model["assets"] - model["failed"],
        },
    }


def grpo_figures(d):
    """First and last ten steps' mean reward, the last KL and the wall time of a run."""
    rows = [json.loads(l) for l in open(os.path.join(d, "grpo.log.jsonl")) if l.strip()]
    mean = lambda xs: sum(xs) / len(xs)
    return {
        "steps": rows[-1]["step"],
        "first10": mean([r["mean_reward"] for r in rows[:10]]),
        "last10": mean([r["mean_reward"] for r in rows[-10:]]),
        "kl": rows[-1].get("kl", 0),
        "wall_s": rows[-1]["wall_s"],
    }


def fmt_pair(p, digits=2):
    if p is None:
        return "–"
    f = f"{{:+.{digits}f}}"
    return f"{f.format(p['mean'])} [{f.format(p['low'])}, {f.format(p['high'])}] ({p['lower']} / {p['higher']} of {p['files']})"


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: summary.py OUT REWARD...")
    out, specs = argv[1], argv[2:]
    before = checkpoint_figures(os.path.join(out, "before"))
    runs = {s: checkpoint_figures(os.path.join(out, folder(s))) for s in specs}
    print("# Goodhart test\n")
    print(open(os.path.join(out, "settings")).read().strip() + "\n")
    print("| held out | before | " + " | ".join(f"after {s}" for s in specs) + " |")
    print("|---|---:|" + "---:|" * len(specs))
    for k in before["means"]:
        cells = [before["means"][k]] + [runs[s]["means"].get(k, float("nan")) for s in specs]
        digits = 0 if k.startswith("rigs") else (1 if k == "joints" else 3 if "score" in k else 2)
        print(f"| {k} | " + " | ".join(f"{c:.{digits}f}" for c in cells) + " |")
    print("\nAfter − before, file by file: mean [95% bootstrap interval] (files lower / higher of files):\n")
    print("| | " + " | ".join(specs) + " |")
    print("|---|" + "---|" * len(specs))
    for key, name, digits in (("cd", "CD-J2J ×10⁻²", 2), ("joints", "joints", 1), ("score", "score (current weights), model's rig", 3)):
        print(f"| {name} | " + " | ".join(fmt_pair(paired(before[key], runs[s][key]), digits) for s in specs) + " |")
    for split in ("characters", "all"):
        cells = []
        for s in specs:
            rep = load(os.path.join(out, folder(s), "skin-paired.json"))
            p = next((x for x in rep.get("paired", []) if x["split"] == split and x.get("metric", "deformation") == "deformation"), None)
            cells.append(fmt_pair(p and {"mean": p["mean_diff"], "low": p["low"], "high": p["high"], "lower": p["lower"], "higher": p["higher"], "files": p["files"]}))
        print(f"| skin error ×100, {split} (eval's pairing) | " + " | ".join(cells) + " |")
    if len(specs) > 1:
        first = specs[0]
        print(f"\nAfter {first} − after each other run, file by file (same format):\n")
        print("| | " + " | ".join(f"{first} − {s}" for s in specs[1:]) + " |")
        print("|---|" + "---|" * (len(specs) - 1))
        for key, name, digits in (("cd", "CD-J2J ×10⁻²", 2), ("joints", "joints", 1), ("score", "score (current weights), model's rig", 3), ("skin", "skin error ×100, all", 2)):
            print(f"| {name} | " + " | ".join(fmt_pair(paired(runs[s][key], runs[first][key]), digits) for s in specs[1:]) + " |")
    print("\nGRPO runs (mean reward under the run's own weights):\n")
    print("| run | steps | mean reward, first 10 → last 10 steps | KL at the end | wall s |")
    print("|---|---:|---|---:|---:|")
    for s in specs:
        g = grpo_figures(os.path.join(out, folder(s)))
        print(f"| {s} | {g['steps']} | {g['first10']:.3f} → {g['last10']:.3f} | {g['kl']:.4f} | {g['wall_s']:.0f} |")
    wall = os.path.join(out, "wall.txt")
    if os.path.exists(wall):
        print("\n" + open(wall).read().strip())


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
"""Writes a suite of seeded scenario variants for the `hal test` benchmark (Benchmarks/suite).

From each shipped scenario, COUNT/5 variants in OUT (default Benchmarks/data/suite):
- the campus walk with its GPS noise reseeded (the walk scenario copied with a new seed);
- the trainer with its expression timeline reseeded;
- the viewer, the talk board and the field guide with a seeded fault plan of jitter and duplicates on their inputs.
The variants keep their scenario's expectations; some may fail under their seed, which the benchmark reports.
"""
import json
import os
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
out = sys.argv[2] if len(sys.argv) > 2 else "Benchmarks/data/suite"
root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
os.makedirs(out, exist_ok=True)

shipped = {
    "explorer": "traces/ubc/explorer.run.json",
    "fieldguide": "traces/fieldguide/walk.run.json",
    "talkboard": "traces/talkboard/session.run.json",
    "trainer": "traces/trainer/facial-fun.run.json",
    "viewer": "traces/viewer/school.run.json",
}

def absolute(scenario_path, relative):
    return os.path.join(root, os.path.dirname(scenario_path), relative)

for app, path in shipped.items():
    with open(os.path.join(root, path)) as handle:
        scenario = json.load(handle)
    for index in range(count // len(shipped)):
        seed = 1000 + index
        variant = dict(scenario)
        variant["config"] = absolute(path, scenario["config"])
        inputs = []
        for item in scenario["inputs"]:
            source = absolute(path, item)
            if item.endswith(".walk.json") or item.endswith(".expressions.json"):
                with open(source) as handle:
                    script = json.load(handle)
                script["seed"] = seed
                for key in ("placesFile",):
                    if key in script:
                        script[key] = absolute(path, os.path.join(os.path.dirname(item), script[key]))
                name = f"{app}-{index:04d}" + (".walk.json" if item.endswith(".walk.json") else ".expressions.json")
                with open(os.path.join(out, name), "w") as handle:
                    json.dump(script, handle)
                inputs.append(name)
            else:
                inputs.append(source)
        variant["inputs"] = inputs
        if app in ("viewer", "talkboard", "fieldguide"):
            plan = {"seed": seed, "faults": [{"kind": "jitter", "magnitude": 0.002}, {"kind": "duplicate", "probability": 0.01}]}
            with open(os.path.join(out, f"{app}-{index:04d}.faults.json"), "w") as handle:
                json.dump(plan, handle)
            variant["faults"] = f"{app}-{index:04d}.faults.json"
        with open(os.path.join(out, f"{app}-{index:04d}.run.json"), "w") as handle:
            json.dump(variant, handle, indent=1)
print(f"wrote {count // len(shipped) * len(shipped)} scenarios to {out}")

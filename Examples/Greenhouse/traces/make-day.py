#!/usr/bin/env python3
"""Writes traces/day.jsonl: six hours of a greenhouse, shortened from a real day's pattern.

Bed 1 dries out and is watered; bed 2's probe stops reporting after five hours; the outside air dips below
freezing before dawn while the greenhouse stays warm. Run it from this folder; the same script gives the same bytes.
"""
import json

def line(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)

header = {"format": "hal-trace", "version": 1, "channels": [
    {"id": "bed1", "kind": "soil-moisture", "source": "i2c:soil-probe-1", "units": "%VWC", "rate": 1 / 300, "name": "Bed 1 soil probe", "backend": "greenhouse"},
    {"id": "bed2", "kind": "soil-moisture", "source": "i2c:soil-probe-2", "units": "%VWC", "rate": 1 / 300, "name": "Bed 2 soil probe", "backend": "greenhouse"},
    {"id": "inside", "kind": "temperature", "source": "iio:local/iio:device2#temp", "units": "degC", "rate": 1 / 600, "name": "Greenhouse air", "backend": "iio"},
    {"id": "outside", "kind": "temperature", "source": "iio:local/iio:device3#temp", "units": "degC", "rate": 1 / 600, "name": "Outside air", "backend": "iio"}],
    "meta": {"title": "A greenhouse morning: a dry bed, frost outside, a probe that goes quiet"}}

records = []
second = 1_000_000_000
for minute in range(0, 361, 5):          # every five minutes for six hours
    t = minute * 60 * second
    hours = minute / 60
    bed1 = 30.0 - 2.0 * hours if hours < 4 else 40.0 - 0.5 * (hours - 4)
    records.append((t, 0, {"t": t, "ch": "bed1", "probe": 1, "vwc": round(bed1, 1)}))
    if hours <= 5:
        records.append((t, 1, {"t": t, "ch": "bed2", "probe": 2, "vwc": round(35.0 - 0.2 * hours, 1)}))
    if minute % 10 == 0:
        inside = round(8.0 + 1.0 * hours, 1)
        outside = round(3.0 - 2.5 * hours if hours < 1 else 0.5 + 1.2 * (hours - 1), 1)
        records.append((t, 2, {"t": t, "ch": "inside", "v": inside}))
        records.append((t, 3, {"t": t, "ch": "outside", "v": outside}))
records.sort(key=lambda r: (r[0], r[1]))
with open("traces/day.jsonl", "w") as out:
    out.write(line(header) + "\n")
    for _, _, record in records:
        for key in ("vwc", "v"):
            if key in record:
                record[key] = float(record[key])
        out.write(line(record) + "\n")

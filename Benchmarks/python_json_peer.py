"""The peer for Benchmarks/run: Python's json module reading a trace line by line.

It does what the Swift reader does: parse the header, then parse every record line and
consume its vector, so both sides pay for JSON decoding into usable values.
"""
import json
import sys
import time


def read(path, loads):
    count = 0
    total = 0.0
    with open(path, "rb") as f:
        loads(f.readline())
        for line in f:
            record = loads(line)
            v = record["v"]
            total += v[0] + v[1] + v[2]
            count += 1
    return count, total


def main():
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    # A third argument names one peer ("json" or "orjson"), for runs interleaved with the Swift reader's.
    only = sys.argv[3] if len(sys.argv) > 3 else None
    peers = [("python-json", json.loads)]
    try:
        import orjson

        peers.append(("python-orjson", orjson.loads))
    except ImportError:
        pass
    if only:
        peers = [peer for peer in peers if peer[0] == "python-" + only]
    for name, loads in peers:
        best = 0.0
        for _ in range(repeats):
            start = time.perf_counter()
            count, total = read(path, loads)
            seconds = time.perf_counter() - start
            best = max(best, count / seconds)
            print(f"{name}: read {count} samples in {seconds:.3f} s (checksum {total})")
        print(f"RESULT {name} best {int(best)} samples/s")


if __name__ == "__main__":
    main()

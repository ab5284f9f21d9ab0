"""The peer for `Benchmarks/nmea`: pynmea2 (PyPI `pynmea2`) decoding NMEA 0183 receiver logs.

Usage: python3 Benchmarks/nmea_peer.py LOG [LOG ...] [--repeats 5]

Every line that starts with '$' (after stripping whitespace and CR/LF) is collected from the logs, in order, once,
before any timing; '#' comment lines and anything else are left out. Two variants then run over that same list:

  pynmea2             pynmea2.parse(line, check=True), then what a fix assembler reads: for GGA, RMC, GLL and GNS
                      with a non-empty latitude field, .latitude and .longitude (decimal degrees, computed by
                      pynmea2); for GGA also .altitude; for RMC also .spd_over_grnd and .datestamp. The latitudes
                      are summed into a checksum so the work has a visible result.
  pynmea2-parse-only  pynmea2.parse(line, check=True) and nothing else (pynmea2 converts fields lazily, on access).

Sentences pynmea2 refuses (pynmea2.ParseError: bad checksum, missing checksum, unparsable line, unknown sentence
type) are counted as rejected, as are position sentences whose coordinate pynmea2 cannot convert (ValueError).
Timing (time.perf_counter) covers the decode loop only; the best of --repeats passes is reported.

Prints: RESULT <name> sentences_per_second=N sentences=M rejected=R [checksum=...]
"""
import argparse
import time

import pynmea2

# The sentence classes that carry a position (all have pynmea2's LatLonFix .latitude/.longitude).
POSITION = (pynmea2.GGA, pynmea2.RMC, pynmea2.GLL, pynmea2.GNS)


def load(paths):
    """All '$' lines of the logs, in order. Logs may hold binary junk, so decode bytes as Latin-1 (never fails)."""
    lines = []
    for path in paths:
        with open(path, "rb") as f:
            for raw in f:
                line = raw.decode("latin-1").strip()
                if line.startswith("$"):
                    lines.append(line)
    return lines


def decode_fixes(lines):
    """Parse every sentence and read the fix fields. Returns (rejected, checksum)."""
    parse, ParseError = pynmea2.parse, pynmea2.ParseError
    GGA, RMC = pynmea2.GGA, pynmea2.RMC
    rejected, checksum = 0, 0.0
    for line in lines:
        try:
            msg = parse(line, check=True)
        except ParseError:                      # includes ChecksumError and SentenceTypeError
            rejected += 1
            continue
        if isinstance(msg, POSITION) and msg.lat:
            try:
                latitude = msg.latitude         # dm_to_sd: 'DDMM.MMMM' + hemisphere -> signed degrees
                msg.longitude
            except ValueError:                  # malformed coordinate text
                rejected += 1
                continue
            checksum += latitude
            if isinstance(msg, GGA):
                msg.altitude
            elif isinstance(msg, RMC):
                msg.spd_over_grnd
                msg.datestamp
    return rejected, checksum


def parse_only(lines):
    """Parse every sentence, touch nothing. Returns (rejected, None)."""
    parse, ParseError = pynmea2.parse, pynmea2.ParseError
    rejected = 0
    for line in lines:
        try:
            parse(line, check=True)
        except ParseError:
            rejected += 1
    return rejected, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    lines = load(args.logs)
    print(f"# pynmea2 {pynmea2.version}, {len(lines)} sentences from {len(args.logs)} log(s)")
    for name, decode in (("pynmea2", decode_fixes), ("pynmea2-parse-only", parse_only)):
        best = float("inf")
        for _ in range(max(1, args.repeats)):
            start = time.perf_counter()
            rejected, checksum = decode(lines)
            best = min(best, time.perf_counter() - start)
        extra = f" checksum={checksum:.9f}" if checksum is not None else ""
        print(f"RESULT {name} sentences_per_second={len(lines) / best:.0f} sentences={len(lines)} "
              f"rejected={rejected}{extra}")


if __name__ == "__main__":
    main()

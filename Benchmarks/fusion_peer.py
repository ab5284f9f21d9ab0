"""Peer for the orientation-fusion benchmark: x-io Technologies' Fusion AHRS (PyPI `imufusion`, 1.3.x).

Usage: python3 Benchmarks/fusion_peer.py DATA.csv [--skip 15] [--repeats 3] [--convention enu|nwu]

DATA.csv has the header t,gx,gy,gz,ax,ay,az,mx,my,mz,qw,qx,qy,qz: gyroscope in deg/s, accelerometer in g
(specific force), magnetometer in uT, all in the device frame, at a uniform rate; q is the ground-truth
quaternion rotating device-frame vectors into the ENU earth frame.

Three variants run over the same samples:
  imufusion-9axis-offset   Bias (gyroscope offset estimator) -> Ahrs.update           (x-io's advanced example)
  imufusion-9axis          Ahrs.update on the raw gyroscope
  imufusion-6axis-offset   Bias -> Ahrs.update_no_magnetometer
The AHRS settings are those of x-io's advanced example (gain 0.5, gyroscope range 2000 deg/s, acceleration and
magnetic rejection 10 deg, rejection timeout 5 s) at the file's sample rate. imufusion 1.3 supports ENU natively;
`--convention nwu` runs it in NWU (x-io's default) and rotates its output into ENU, as a check of the frames.

Attitude error over samples with t >= skip, q_err = q_true * conj(q_est) (an earth-frame rotation): total = its
angle; heading = angle of its twist about earth z (swing-twist); tilt = angle of the remaining swing. Degrees.
Timing covers the update loop only (input already converted to float32 arrays), best of --repeats, and includes
reading the quaternion after every update.

Prints one line per variant: RESULT <name> ns_per_update=... total_rms=... total_max=... tilt_rms=... heading_rms=...
"""
import argparse
import time

import imufusion
import numpy as np

COLUMNS = "t,gx,gy,gz,ax,ay,az,mx,my,mz,qw,qx,qy,qz".split(",")

# Fixed rotation taking NWU coordinates to ENU: east = -west, north = north, up = up, i.e. +90 deg about z.
Q_ENU_FROM_NWU = np.array([np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])


def load(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, header.index(name)] for name in COLUMNS}


def qmul(a, b):
    """Hamilton product of (N, 4) arrays (or broadcastable), w first."""
    w1, x1, y1, z1 = np.moveaxis(a, -1, 0)
    w2, x2, y2, z2 = np.moveaxis(b, -1, 0)
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=-1)


def errors(q_true, q_est):
    """Total, tilt and heading error angles (degrees) of q_err = q_true * conj(q_est)."""
    q_est = q_est / np.linalg.norm(q_est, axis=1, keepdims=True)
    q_err = qmul(q_true / np.linalg.norm(q_true, axis=1, keepdims=True), q_est * [1, -1, -1, -1])
    w, x, y, z = np.abs(q_err).T                              # |.| picks the shorter of q and -q
    total = 2 * np.arctan2(np.sqrt(x * x + y * y + z * z), w)
    heading = 2 * np.arctan2(z, w)                             # twist about earth z: (w, 0, 0, z) normalised
    tilt = 2 * np.arccos(np.clip(np.hypot(w, z), 0.0, 1.0))    # swing = q_err * conj(twist) has w = hypot(w, z)
    return np.degrees(total), np.degrees(tilt), np.degrees(heading)


def run(gyro, accel, mag, sample_rate, convention, use_bias, use_mag):
    """One pass through the data with fresh algorithm state. Returns (seconds, quaternions as (N, 4))."""
    bias = imufusion.Bias()
    bias.set_settings(imufusion.BiasSettings(sample_rate=sample_rate))
    ahrs = imufusion.Ahrs()
    settings = imufusion.AhrsSettings(sample_rate=sample_rate, gain=0.5, gyroscope_range=2000,
                                      acceleration_rejection=10, magnetic_rejection=10, rejection_timeout=5)
    # imufusion 1.3.3's AhrsSettings(...) validates but drops its `convention` argument (always NWU);
    # the property setter works, so set it that way and check.
    settings.convention = convention
    assert settings.convention == convention
    ahrs.set_settings(settings)
    out = []
    append, get_q = out.append, ahrs.get_quaternion
    start = time.perf_counter()
    if use_mag and use_bias:
        update, bias_update = ahrs.update, bias.update
        for g, a, m in zip(gyro, accel, mag):
            update(bias_update(g), a, m)
            append(get_q())
    elif use_mag:
        update = ahrs.update
        for g, a, m in zip(gyro, accel, mag):
            update(g, a, m)
            append(get_q())
    else:
        update, bias_update = ahrs.update_no_magnetometer, bias.update
        for g, a in zip(gyro, accel):
            update(bias_update(g), a)
            append(get_q())
    elapsed = time.perf_counter() - start
    return elapsed, np.array(out, dtype=np.float64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data")
    parser.add_argument("--skip", type=float, default=15.0, help="seconds excluded from the error statistics")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes per variant; the best is reported")
    parser.add_argument("--convention", choices=["enu", "nwu"], default="enu")
    args = parser.parse_args()

    d = load(args.data)
    n = len(d["t"])
    sample_rate = (n - 1) / (d["t"][-1] - d["t"][0])  # uniform rate assumed (same formula as the C harness)
    # Per-sample contiguous float32 arrays: what imufusion converts to anyway, so the loop times the library.
    split = lambda keys: list(np.ascontiguousarray(np.stack([d[k] for k in keys], axis=1), dtype=np.float32))
    gyro, accel, mag = split(["gx", "gy", "gz"]), split(["ax", "ay", "az"]), split(["mx", "my", "mz"])
    q_true = np.stack([d[k] for k in ["qw", "qx", "qy", "qz"]], axis=1)
    keep = d["t"] >= args.skip
    if not keep.any():
        raise SystemExit(f"no samples with t >= {args.skip}")
    convention = imufusion.CONVENTION_ENU if args.convention == "enu" else imufusion.CONVENTION_NWU

    variants = [("imufusion-9axis-offset", True, True),
                ("imufusion-9axis", False, True),
                ("imufusion-6axis-offset", True, False)]
    for name, use_bias, use_mag in variants:
        best = float("inf")
        for _ in range(max(1, args.repeats)):
            seconds, q_est = run(gyro, accel, mag, sample_rate, convention, use_bias, use_mag)
            best = min(best, seconds)
        if convention == imufusion.CONVENTION_NWU:
            q_est = qmul(Q_ENU_FROM_NWU, q_est)  # v_enu = R v_nwu = R q_nwu v_dev, so q_enu = q_R * q_nwu
        total, tilt, heading = (e[keep] for e in errors(q_true, q_est))
        rms = lambda e: float(np.sqrt(np.mean(e * e)))
        print(f"RESULT {name} ns_per_update={best / n * 1e9:.0f} total_rms={rms(total):.4f} "
              f"total_max={total.max():.4f} tilt_rms={rms(tilt):.4f} heading_rms={rms(heading):.4f}")


if __name__ == "__main__":
    main()

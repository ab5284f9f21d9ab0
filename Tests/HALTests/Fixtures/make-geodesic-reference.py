"""Makes geodesic-reference.csv: WGS84 geodesics by GeographicLib (Karney's reference implementation,
PyPI `geographiclib`), for the HAL's geodesy tests. Seeded, so it gives the same file every time.

    python3 -m pip install geographiclib && python3 make-geodesic-reference.py > geodesic-reference.csv
"""
import random

from geographiclib.geodesic import Geodesic

rng = random.Random(2026)
print("lat1,lon1,lat2,lon2,distance_m,azimuth1_deg,azimuth2_deg")
rows = []
# Campus-scale, city-scale and continental distances, plus random pairs anywhere (not near-antipodal).
for scale in (0.01, 0.2, 5, 40):
    for _ in range(60):
        lat1, lon1 = rng.uniform(-85, 85), rng.uniform(-180, 180)
        lat2 = max(-89.9, min(89.9, lat1 + rng.uniform(-scale, scale)))
        lon2 = lon1 + rng.uniform(-scale, scale)
        rows.append((lat1, lon1, lat2, (lon2 + 540) % 360 - 180))
for _ in range(60):
    lat1, lon1, lat2, lon2 = rng.uniform(-89, 89), rng.uniform(-180, 180), rng.uniform(-89, 89), rng.uniform(-180, 180)
    if abs(lat1 + lat2) < 2 and abs(abs(lon1 - lon2) - 180) < 2:
        continue
    rows.append((lat1, lon1, lat2, lon2))
for lat1, lon1, lat2, lon2 in rows:
    g = Geodesic.WGS84.Inverse(lat1, lon1, lat2, lon2)
    print(f"{lat1!r},{lon1!r},{lat2!r},{lon2!r},{g['s12']!r},{g['azi1'] % 360!r},{g['azi2'] % 360!r}")

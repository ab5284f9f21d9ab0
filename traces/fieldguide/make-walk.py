import json, zlib, struct
def png(path, w, h, shade):
    raw = b''.join(b'\x00' + bytes(v for x in range(w) for v in ((x // 40) * 60, (y // 40) * 80, shade)) for y in range(h))
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
header = {"format":"hal-trace","version":1,"channels":[
  {"id":"cam","kind":"camera","source":"v4l2:/dev/video0","name":"Phone camera","backend":"v4l2"},
  {"id":"gps","kind":"location","source":"gpsd://localhost:2947","units":"deg,m,m/s","rate":1.0,"name":"GPS","backend":"gpsd"},
  {"id":"keys","kind":"keys","source":"evdev:/dev/input/event1#keys","name":"Camera key","backend":"evdev"},
  {"id":"touch","kind":"pointer","source":"evdev:/dev/input/event2#pointer","units":"normalized","name":"Touchscreen","backend":"evdev"}],
  "meta":{"title":"Field guide walk: captures with no fix, a good fix cropped by a drag and a pinch, a lost fix, one cancelled, a stale fix and a stale frame; a dropped frame"}}
records = []
for second in range(0, 20):
    seq = second + (1 if second >= 12 else 0)   # frame 12 was dropped
    name = "frames/cam-%02d.png" % seq
    png(name, 160, 120, (seq * 13) % 256)
    records.append((second * 10**9, 0, '{"t":%d,"ch":"cam","seq":%d,"width":160,"height":120,"format":"PNG","file":"%s"}' % (second * 10**9, seq, name)))
lat, lon = 49.26913, -123.25065
for second in list(range(2, 9)) + list(range(13, 17)):
    t = second * 10**9 + 500_000_000
    utc = "2026-06-12T18:00:%02d.500Z" % second
    records.append((t, 1, '{"t":%d,"ch":"gps","mode":"3d","utc":"%s","lat":%s,"lon":%s,"alt":82.0,"hacc":4.0}' % (t, utc, repr(round(lat + second * 1e-6, 7)), repr(round(lon + second * 2e-6, 7)))))
for second in range(9, 13):
    t = second * 10**9 + 500_000_000
    records.append((t, 1, '{"t":%d,"ch":"gps","mode":"none","utc":"2026-06-12T18:00:%02d.500Z"}' % (t, second)))
for at in (1.2, 4.7, 6.5, 10.7, 14.7, 15.6, 16.0, 19.8, 22.5):
    t = int(round(at * 1e9))
    records.append((t, 2, '{"t":%d,"ch":"keys","code":212,"state":"press"}' % t))
    records.append((t + 90_000_000, 2, '{"t":%d,"ch":"keys","code":212,"state":"release"}' % (t + 90_000_000)))
def touch(at, phase, pointer, x, y):
    t = int(round(at * 1e9))
    records.append((t, 3, '{"t":%d,"ch":"touch","phase":"%s","pointer":%d,"x":%s,"y":%s}' % (t, phase, pointer, repr(x), repr(y))))
# The crop view of the capture at 4.7 s: a drag 0.1 of the width to the right, then a pinch spreading the fingers twice
# as far apart (a box half as wide); the camera key at 6.5 s saves it. The capture at 14.7 s is cancelled.
touch(5.3, "press", 0, 0.5, 0.4); touch(5.4, "move", 0, 0.55, 0.4); touch(5.5, "release", 0, 0.6, 0.4)
touch(5.8, "press", 0, 0.4, 0.5); touch(5.85, "press", 1, 0.6, 0.5); touch(5.95, "move", 1, 0.7, 0.5)
touch(6.0, "move", 0, 0.3, 0.5); touch(6.1, "release", 1, 0.7, 0.5); touch(6.15, "release", 0, 0.3, 0.5)
touch(15.2, "press", 0, 0.15, 0.92); touch(15.28, "release", 0, 0.15, 0.92)
records.sort()
open("walk.jsonl", "w").write(json.dumps(header, separators=(',', ':')) + "\n" + "".join(r[2] + "\n" for r in records))

"""Reads an SVG of `hal plot` as other programs do: parsed by Python's XML parser (xml.etree), and rendered to PNG by
librsvg's rsvg-convert. Prints what the tests check, as JSON.

    check_svg.py FILE.svg FILE.png
"""
import json
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
import zlib

SVG = "{http://www.w3.org/2000/svg}"


def png_facts(path):
    """The PNG's size, and its pixels' variety, after undoing PNG's row filters (8-bit RGB or RGBA, as rsvg writes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert depth == 8 and colour in (2, 6), f"depth {depth}, colour type {colour}"
    channels = 4 if colour == 6 else 3
    idat, at = b"", 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + length]
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    pixels = [bytes(row[x:x + 3]) for row in rows[::4] for x in range(0, stride, channels * 4)]
    not_white = sum(1 for pixel in pixels if min(pixel) < 240) / len(pixels)
    return {"width": width, "height": height, "colours": len(set(pixels)), "not_white": not_white}


def main(svg_path, png_path):
    root = ElementTree.parse(svg_path).getroot()
    groups = {}
    for group in root.iter(SVG + "g"):
        counts = {}
        points = 0
        for child in group.iter():
            tag = child.tag.replace(SVG, "")
            counts[tag] = counts.get(tag, 0) + 1
            if tag == "polyline":
                points += len(child.get("points").split())
        counts["points"] = points
        groups[group.get("id")] = counts
    texts = [t.text for t in root.iter(SVG + "text")]
    route_markers = 0
    for group in root.iter(SVG + "g"):
        if group.get("id") == "route":
            route_markers = sum(1 for r in group.iter(SVG + "rect") if r.get("fill") == "#ff7f0e")
    render = subprocess.run(["rsvg-convert", svg_path, "-o", png_path], capture_output=True, text=True)
    facts = {"width": float(root.get("width")), "height": float(root.get("height")), "title": root.find(SVG + "title").text,
             "groups": groups, "texts": texts, "arrival_markers": route_markers,
             "rsvg": render.returncode, "rsvg_error": render.stderr}
    if render.returncode == 0:
        facts["png"] = png_facts(png_path)
    print(json.dumps(facts))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

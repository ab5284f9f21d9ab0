#!/usr/bin/python3
"""A campus guide for a Linux board: it reads a serial NMEA GPS receiver and a touchscreen through the ordinary
Linux interfaces (a tty, and evdev through python3-evdev) and speaks through ALSA's default device when the walker
arrives at a place. A tap on the screen repeats where the walker is.

It knows nothing of the simulator: on a board it is run as

    campus_guide.py --gps /dev/ttyACM0 --touch /dev/input/event2 --places places.json

and under `hal exec` the same program finds its devices in HAL_DEVICE_GPS and HAL_DEVICE_TOUCH.

Each line it prints is one thing it did, for people and for the scenario's patterns:
    arrived PLACE-ID       it came within the place's radius
    left PLACE-ID          it went out again
    tap X Y                a finger touched the screen (0..1 across and down)
    repeat PLACE-ID        the tap repeated the current place
"""
import argparse
import json
import math
import os
import select
import subprocess
import sys
import termios
import tty

import evdev

ARRIVE_METRES = 30.0
LEAVE_METRES = 45.0


def distance(lat1, lon1, lat2, lon2):
    """Metres between two points, on a sphere of the Earth's mean radius."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


def nmea_position(sentence):
    """(lat, lon) from a GGA sentence with a fix, else None."""
    body = sentence.split("*")[0]
    fields = body.split(",")
    if not fields[0].endswith("GGA") or len(fields) < 7 or fields[6] in ("", "0"):
        return None

    def degrees(value, hemisphere, width):
        whole = float(value[:width])
        minutes = float(value[width:])
        sign = -1 if hemisphere in ("S", "W") else 1
        return sign * (whole + minutes / 60)

    try:
        return degrees(fields[2], fields[3], 2), degrees(fields[4], fields[5], 3)
    except ValueError:
        return None


def say(text):
    """Speaks `text` through ALSA's default device, without waiting for it."""
    subprocess.Popen(["espeak-ng", text], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gps", default=os.environ.get("HAL_DEVICE_GPS", "/dev/ttyACM0"))
    parser.add_argument("--touch", default=os.environ.get("HAL_DEVICE_TOUCH", "/dev/input/event0"))
    parser.add_argument("--places", default="places.json")
    args = parser.parse_args()

    with open(args.places) as file:
        places = json.load(file)["places"]

    gps = os.open(args.gps, os.O_RDONLY | os.O_NOCTTY)
    if os.isatty(gps):
        tty.setraw(gps)
        attributes = termios.tcgetattr(gps)
        attributes[4] = attributes[5] = termios.B9600
        termios.tcsetattr(gps, termios.TCSANOW, attributes)
    touch = evdev.InputDevice(args.touch)
    width = touch.absinfo(evdev.ecodes.ABS_X)
    height = touch.absinfo(evdev.ecodes.ABS_Y)
    print(f"ready: gps {args.gps}, touch {args.touch} ({touch.name})", flush=True)

    pending = b""
    here = None
    down = False
    x = y = 0
    while True:
        readable, _, _ = select.select([gps, touch.fd], [], [])
        if gps in readable:
            chunk = os.read(gps, 4096)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                position = nmea_position(line.decode("ascii", "replace").strip())
                if position is None:
                    continue
                if here is not None:
                    place = places[here]
                    if distance(*position, place["lat"], place["lon"]) > LEAVE_METRES:
                        print(f"left {here}", flush=True)
                        here = None
                if here is None:
                    for identifier, place in places.items():
                        if distance(*position, place["lat"], place["lon"]) <= ARRIVE_METRES:
                            here = identifier
                            print(f"arrived {identifier}", flush=True)
                            say(f"You have arrived at {place['name']}")  # the arrival sound
                            break
        if touch.fd in readable:
            for event in touch.read():
                if event.type == evdev.ecodes.EV_ABS and event.code == evdev.ecodes.ABS_X:
                    x = event.value
                elif event.type == evdev.ecodes.EV_ABS and event.code == evdev.ecodes.ABS_Y:
                    y = event.value
                elif event.type == evdev.ecodes.EV_KEY and event.code == evdev.ecodes.BTN_TOUCH:
                    down = event.value == 1
                elif event.type == evdev.ecodes.EV_SYN and event.code == evdev.ecodes.SYN_REPORT and down:
                    down = False
                    print(f"tap {x / width.max:.2f} {y / height.max:.2f}", flush=True)
                    if here is not None:
                        print(f"repeat {here}", flush=True)
                        say(f"You are at {places[here]['name']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

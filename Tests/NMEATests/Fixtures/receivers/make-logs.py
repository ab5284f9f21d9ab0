#!/usr/bin/env python3
"""Writes the hand-made receiver logs of this folder: one per way a receiver can report a fix.

Run from this folder; then make each NAME.log.chk with gpsd's gpsfake (gpsd 3.22, Debian's gpsd-clients):
    gpsfake -1 -p -q NAME.log > NAME.log.chk
The logs walk north-east from a point in Vancouver at about 1.4 m/s, one epoch a second, on 2026-11-20.
"""
import math

def checksum(body):
    value = 0
    for char in body:
        value ^= ord(char)
    return f"{value:02X}"

def sentence(body):
    return f"${body}*{checksum(body)}"

def angle(value, hemispheres, degree_digits):
    hemisphere = hemispheres[0] if value >= 0 else hemispheres[1]
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    return f"{degrees:0{degree_digits}d}{minutes:07.4f}", hemisphere

def epoch(second):
    lat = 49.2606 + 0.00001 * second
    lon = -123.2460 + 0.00001 * second
    hhmmss = f"{10 + second // 3600:02d}{(second // 60) % 60:02d}{second % 60:02d}.00"
    (la, ns), (lo, ew) = angle(lat, "NS", 2), angle(lon, "EW", 3)
    return hhmmss, la, ns, lo, ew

DATE = "201126"  # ddmmyy
ZDA_DATE = "20,11,2026"

def write(name, header, make, count=12):
    with open(name, "w") as out:
        out.write(f"# Name: {name}\n# Description: {header}\n# Written by make-logs.py; gpsd's report is {name}.chk\n")
        for second in range(count):
            for body in make(second):
                # A body that is a tuple is (noise before, sentence body): the line a receiver's noise makes.
                noise, body = body if isinstance(body, tuple) else ("", body)
                out.write(noise + sentence(body) + "\r\n")

# A marine unit's integrated navigation: every sentence from the IN talker.
write("marine-in.log", "integrated navigation ($IN) RMC, GGA, VTG and ZDA",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"INGGA,{t},{la},{ns},{lo},{ew},1,09,0.9,{31.5 + s * 0.1:.1f},M,-16.9,M,,",
          f"INRMC,{t},A,{la},{ns},{lo},{ew},2.7,45.0,{DATE},16.4,E,A",
          "INVTG,45.0,T,28.6,M,2.7,N,5.0,K,A",
          f"INZDA,{t},{ZDA_DATE},00,00"])(*epoch(s)))

# Only RMC: 2D fixes, one of them void.
write("rmc-only.log", "RMC alone, from a multi-constellation receiver; second 6 is void",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"GNRMC,{t},{'V' if s == 6 else 'A'},{la},{ns},{lo},{ew},2.7,45.0,{DATE},,,{'N' if s == 6 else 'A'}"])(*epoch(s)))

# Only GLL (with ZDA for the date): 2D fixes.
write("gll-only.log", "GLL alone, with ZDA for the date",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"GPZDA,{t},{ZDA_DATE},00,00",
          f"GPGLL,{la},{ns},{lo},{ew},{t},A,A"])(*epoch(s)))

# Only GGA (with ZDA for the date): 3D fixes from the altitude.
write("gga-only.log", "GGA alone, with ZDA for the date; second 4 has quality 0",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"GPZDA,{t},{ZDA_DATE},00,00",
          f"GPGGA,{t},{la},{ns},{lo},{ew},{0 if s == 4 else 1},08,1.1,{42.0 + s * 0.2:.1f},M,-16.9,M,,"])(*epoch(s)))

# Only GNS (with ZDA for the date), from a GPS+GLONASS+Galileo receiver.
write("gns-only.log", "GNS alone, with ZDA for the date",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"GNZDA,{t},{ZDA_DATE},00,00",
          f"GNGNS,{t},{la},{ns},{lo},{ew},AAA,14,0.8,{55.0 + s * 0.1:.1f},-16.9,,,V"])(*epoch(s)))

# A fix spread over an epoch: GGA has the position, GSA the mode, RMC the date and speed, VTG the course; GSA and
# VTG carry no time, and every other epoch's GLL comes with its time field empty.
write("spread-epoch.log", "one fix over GGA, GSA, RMC, VTG and a GLL whose time is sometimes empty",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"GPGGA,{t},{la},{ns},{lo},{ew},1,07,1.3,{12.0 + s * 0.1:.1f},M,-16.9,M,,",
          f"GPGSA,A,{2 if s % 3 == 0 else 3},05,12,15,18,24,25,29,,,,,,2.1,1.3,1.6",
          f"GPGLL,{la},{ns},{lo},{ew},{'' if s % 2 else t},A,A",
          f"GPRMC,{t},A,{la},{ns},{lo},{ew},2.7,45.0,{DATE},,,A",
          "GPVTG,45.0,T,,M,2.7,N,5.0,K,A"])(*epoch(s)))

# Noise before the start: a doubled `$`, stray bytes, and a sentence cut off by the next one on the same line. Each
# sentence is read from its last `$`.
def noisy(second, t, la, ns, lo, ew):
    gga = f"GPGGA,{t},{la},{ns},{lo},{ew},1,08,1.0,{20.0 + second * 0.1:.1f},M,-16.9,M,,"
    rmc = f"GPRMC,{t},A,{la},{ns},{lo},{ew},2.7,45.0,{DATE},,,A"
    noise = ["$", "\x00\x7f#!", "$GPGGA,1000", "~~", "$$"][second % 5]
    return [(noise, gga), (noise if second % 2 else "", rmc)]

write("resync.log", "a doubled $, stray bytes and a cut-off sentence before the start of sentences",
      lambda s: noisy(s, *epoch(s)))

# A receiver that has a fix before it knows the date: RMC's date field is empty for three epochs, then all zeros
# for two (as some receivers send it), then set.
write("no-date-yet.log", "fixes before the date is known: RMC's date empty for three epochs, 000000 for two, then set",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"GPGGA,{t},{la},{ns},{lo},{ew},1,06,1.4,{31.0 + s * 0.1:.1f},M,-16.9,M,,",
          f"GPRMC,{t},A,{la},{ns},{lo},{ew},2.7,45.0,{'' if s < 3 else '000000' if s < 5 else DATE},,,A"])(*epoch(s)))

# RMC alone before the date is known: the only sentence with the position has no date (empty, then zeros).
write("rmc-no-date-yet.log", "RMC alone; its date empty for three epochs, 000000 for two, then set",
      lambda s: (lambda t, la, ns, lo, ew: [
          f"GPRMC,{t},A,{la},{ns},{lo},{ew},2.7,45.0,{'' if s < 3 else '000000' if s < 5 else DATE},,,A"])(*epoch(s)))

# The rest of what a receiver sends about its fix: GBS (expected errors), GRS (range residuals), DTM (datum), each
# epoch, beside GGA and RMC.
write("gbs-grs-dtm.log", "GGA and RMC with GBS, GRS and DTM each epoch",
      lambda s: (lambda t, la, ns, lo, ew: [
          "GPDTM,W84,,0.0,N,0.0,E,0.0,W84",
          f"GPGGA,{t},{la},{ns},{lo},{ew},1,09,0.9,{18.0 + s * 0.1:.1f},M,-16.9,M,,",
          f"GPGBS,{t},1.6,1.4,3.2,,,,",
          f"GPGRS,{t},1,0.2,-0.4,0.1,0.3,-0.2,0.1,,,,,,",
          f"GPRMC,{t},A,{la},{ns},{lo},{ew},2.7,45.0,{DATE},,,A"])(*epoch(s)))

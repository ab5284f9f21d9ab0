"""A recording made with Foxglove's own SDK (PyPI `foxglove-sdk`), for FoxgloveImportTests.

    foxglove_recording.py FILE PNG    writes FILE: Foxglove's schemas in protobuf, through the SDK's typed channels
                                      (LocationFix: a fix with a known covariance, a fix without altitude, a lost fix;
                                      RawImage rgb8, and bgra8, which the HAL has no format for; CompressedImage, the
                                      PNG given; PoseInFrame in a 'map' frame and in 'NED'; Log at INFO and ERROR;
                                      SceneUpdate, which has no HAL kind) and in JSON, through channels whose schema
                                      is Foxglove's JSON schema by name (LocationFix, RawImage, Log)
Prints FILE.
"""
import base64
import json
import math
import sys

import foxglove
from foxglove import Channel, Schema
from foxglove.channels import (CompressedImageChannel, LocationFixChannel, LogChannel, PoseInFrameChannel,
                               RawImageChannel, SceneUpdateChannel)
from foxglove.messages import (CompressedImage, LocationFix, LocationFixPositionCovarianceType, Log, LogLevel, Pose,
                               PoseInFrame, Quaternion, RawImage, SceneUpdate, Timestamp, Vector3)

SECOND = 1_000_000_000
START = 1_700_000_000 * SECOND


def stamp(ns):
    return Timestamp(sec=ns // SECOND, nsec=ns % SECOND)


def json_time(ns):
    return {"sec": ns // SECOND, "nsec": ns % SECOND}


def main(path, png):
    with foxglove.open_mcap(path, allow_overwrite=True):
        gps = LocationFixChannel("/gps/fix")
        raw = RawImageChannel("/camera/raw")
        rgba = RawImageChannel("/camera/rgba")
        compressed = CompressedImageChannel("/camera/compressed")
        pose = PoseInFrameChannel("/pose")
        pose_ned = PoseInFrameChannel("/pose_ned")
        log = LogChannel("/log")
        scene = SceneUpdateChannel("/scene")

        def json_channel(topic, name):
            # Foxglove's JSON schemas are named as its protobuf ones; the import reads the messages by field name.
            schema = Schema(name=name, encoding="jsonschema", data=json.dumps({"title": name, "type": "object"}).encode())
            return Channel(topic, schema=schema, message_encoding="json")

        gps_json = json_channel("/gps_json", "foxglove.LocationFix")
        raw_json = json_channel("/camera_json", "foxglove.RawImage")
        log_json = json_channel("/log_json", "foxglove.Log")

        for i in range(4):
            t = START + i * SECOND // 10
            if i == 2:
                # A lost fix: Foxglove has no status, so no position is NaN, as the HAL writes it.
                fix = LocationFix(timestamp=stamp(t), frame_id="antenna", latitude=math.nan, longitude=math.nan)
            elif i == 3:
                fix = LocationFix(timestamp=stamp(t), frame_id="antenna", latitude=49.2608, longitude=-123.2458)
            else:
                fix = LocationFix(timestamp=stamp(t), frame_id="antenna", latitude=49.2606 + i * 1e-4, longitude=-123.2460,
                                  altitude=80.5, position_covariance=[4.0, 0, 0, 0, 9.0, 0, 0, 0, 16.0],
                                  position_covariance_type=LocationFixPositionCovarianceType.DiagonalKnown)
            gps.log(fix, log_time=t)
            gps_json.log({"timestamp": json_time(t), "frame_id": "antenna", "latitude": 49.2606 + i * 1e-4,
                          "longitude": -123.2460, "altitude": 80.5,
                          "position_covariance": [4.0, 0, 0, 0, 9.0, 0, 0, 0, 16.0], "position_covariance_type": 2},
                         log_time=t)
            raw.log(RawImage(timestamp=stamp(t), frame_id="cam", width=4, height=3, encoding="rgb8", step=12,
                             data=bytes(range(i, i + 36))), log_time=t)
            raw_json.log({"timestamp": json_time(t), "frame_id": "cam", "width": 2, "height": 2, "encoding": "mono8",
                          "step": 2, "data": base64.b64encode(bytes([i, 1, 2, 3])).decode()}, log_time=t)
            rgba.log(RawImage(timestamp=stamp(t), width=1, height=1, encoding="bgra8", step=4, data=bytes(4)), log_time=t)
            angle = i * 0.1
            pose.log(PoseInFrame(timestamp=stamp(t), frame_id="map", pose=Pose(
                position=Vector3(x=1, y=2, z=0),
                orientation=Quaternion(x=0, y=0, z=math.sin(angle / 2) * 2, w=math.cos(angle / 2) * 2))), log_time=t)
            pose_ned.log(PoseInFrame(timestamp=stamp(t), frame_id="NED", pose=Pose(
                position=Vector3(x=0, y=0, z=0), orientation=Quaternion(x=0, y=0, z=0, w=1))), log_time=t)
            scene.log(SceneUpdate(), log_time=t)
        with open(png, "rb") as f:
            compressed.log(CompressedImage(timestamp=stamp(START), frame_id="cam", data=f.read(), format="png"),
                           log_time=START)
        log.log(Log(timestamp=stamp(START + 50_000_000), level=LogLevel.Info, message="arrived at the library",
                    name="guide", file="guide.py", line=42), log_time=START + 50_000_000)
        # No timestamp: the log time is the record's time.
        log.log(Log(level=LogLevel.Error, message="lost the fix", name="guide"), log_time=START + 250_000_000)
        log_json.log({"timestamp": json_time(START + 60_000_000), "level": 3, "message": "low battery", "name": "power"},
                     log_time=START + 60_000_000)
    print(path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

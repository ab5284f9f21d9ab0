"""ROS 2 recordings for ROS2ImportTests, written by the field's own tools.

    ros2_bag.py rosbags FOLDER PNG     a rosbag2 in MCAP storage by `rosbags` (its typestore's CDR): Imu with and
                                       without orientation, MagneticField, NavSatFix (a fix and a lost fix), Image
                                       (rgb8, and bgra8, which the HAL has no format for), CompressedImage (the PNG
                                       given, and a JPEG header), and two topics the HAL has no kind for
    ros2_bag.py mcap-ros2 FILE         an MCAP file by `mcap-ros2-support`'s writer: 50 Imu messages
    ros2_bag.py huge-image FILE        an MCAP file by `mcap`'s writer with one Image message, hand-serialised, whose
                                       height and step are 2^32 - 1 (their product overflows 64 bits)
Prints the .mcap file's path.
"""
import math
import sys
from pathlib import Path

import numpy as np

SECOND = 1_000_000_000
START = 1_700_000_000 * SECOND


def stamp(types, ns):
    return types["builtin_interfaces/msg/Time"](sec=ns // SECOND, nanosec=ns % SECOND)


def header(types, ns, frame):
    return types["std_msgs/msg/Header"](stamp=stamp(types, ns), frame_id=frame)


def rosbags_bag(folder, png):
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_HUMBLE)
    t = store.types
    Vector3, Quaternion = t["geometry_msgs/msg/Vector3"], t["geometry_msgs/msg/Quaternion"]
    covariance = np.zeros(9, dtype=np.float64)
    unknown = np.array([-1.0] + [0.0] * 8, dtype=np.float64)
    with Writer(Path(folder), version=8, storage_plugin=StoragePlugin.MCAP) as writer:
        topics = {}
        for topic, kind in [("/imu/data", "sensor_msgs/msg/Imu"), ("/imu/data_raw", "sensor_msgs/msg/Imu"),
                            ("/imu/mag", "sensor_msgs/msg/MagneticField"), ("/gps/fix", "sensor_msgs/msg/NavSatFix"),
                            ("/camera/image_raw", "sensor_msgs/msg/Image"),
                            ("/camera/image/compressed", "sensor_msgs/msg/CompressedImage"),
                            ("/camera/rgba", "sensor_msgs/msg/Image"),
                            ("/chatter", "std_msgs/msg/String"), ("/odom_rate", "std_msgs/msg/Float64")]:
            topics[topic] = (writer.add_connection(topic, kind, typestore=store), kind)

        def write(topic, ns, message):
            connection, kind = topics[topic]
            writer.write(connection, ns, store.serialize_cdr(message, kind))

        for i in range(20):
            ns = START + i * 10_000_000  # 100 Hz
            angle = i * 0.01
            orientation = Quaternion(x=0.0, y=0.0, z=math.sin(angle / 2), w=math.cos(angle / 2))
            write("/imu/data", ns, t["sensor_msgs/msg/Imu"](
                header=header(t, ns, "imu_link"), orientation=orientation, orientation_covariance=covariance,
                angular_velocity=Vector3(x=0.01 * i, y=-0.02, z=1.0), angular_velocity_covariance=covariance,
                linear_acceleration=Vector3(x=0.1, y=0.2, z=9.81), linear_acceleration_covariance=covariance))
            write("/imu/data_raw", ns + 1, t["sensor_msgs/msg/Imu"](
                header=header(t, ns + 1, "imu_link"), orientation=Quaternion(x=0.0, y=0.0, z=0.0, w=0.0),
                orientation_covariance=unknown, angular_velocity=Vector3(x=0.5, y=0.0, z=0.0),
                angular_velocity_covariance=covariance, linear_acceleration=Vector3(x=0.0, y=0.0, z=9.8),
                linear_acceleration_covariance=covariance))
            if i % 2 == 0:
                write("/imu/mag", ns, t["sensor_msgs/msg/MagneticField"](
                    header=header(t, ns, "imu_link"), magnetic_field=Vector3(x=2.2e-5, y=5.0e-6, z=-4.1e-5),
                    magnetic_field_covariance=covariance))
            write("/chatter", ns, t["std_msgs/msg/String"](data=f"hello {i}"))
        for i in range(4):
            ns = START + i * SECOND
            status = t["sensor_msgs/msg/NavSatStatus"](status=-1 if i == 2 else 0, service=1)
            cov = np.array([4.0, 0, 0, 0, 9.0, 0, 0, 0, 16.0], dtype=np.float64)
            write("/gps/fix", ns, t["sensor_msgs/msg/NavSatFix"](
                header=header(t, ns, "gps"), status=status, latitude=49.2606 + i * 1e-5, longitude=-123.2460,
                altitude=float("nan") if i == 3 else 80.5, position_covariance=cov, position_covariance_type=2))
        pixels = np.arange(4 * 3 * 3, dtype=np.uint8)
        write("/camera/image_raw", START, t["sensor_msgs/msg/Image"](
            header=header(t, START, "camera"), height=3, width=4, encoding="rgb8", is_bigendian=0, step=12, data=pixels))
        for i in range(2):  # an encoding the HAL has no pixel format for: the topic is skipped
            write("/camera/rgba", START + i * SECOND, t["sensor_msgs/msg/Image"](
                header=header(t, START + i * SECOND, "camera"), height=1, width=2, encoding="bgra8", is_bigendian=0,
                step=8, data=np.zeros(8, dtype=np.uint8)))
        png_bytes = np.frombuffer(Path(png).read_bytes(), dtype=np.uint8)
        write("/camera/image/compressed", START, t["sensor_msgs/msg/CompressedImage"](
            header=header(t, START, "camera"), format="png", data=png_bytes))
        # A JPEG's start: SOI, APP0 (JFIF), SOF0 of 320x240, EOI.
        jpeg = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" \
            + bytes([0xFF, 0xC0, 0, 17, 8, 0, 240, 1, 64, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9])
        write("/camera/image/compressed", START + SECOND, t["sensor_msgs/msg/CompressedImage"](
            header=header(t, START + SECOND, "camera"), format="jpeg", data=np.frombuffer(jpeg, dtype=np.uint8)))
        write("/odom_rate", START, t["std_msgs/msg/Float64"](data=1.5))
    return next(Path(folder).glob("*.mcap"))


IMU_DEFINITION = """std_msgs/Header header
geometry_msgs/Quaternion orientation
float64[9] orientation_covariance
geometry_msgs/Vector3 angular_velocity
float64[9] angular_velocity_covariance
geometry_msgs/Vector3 linear_acceleration
float64[9] linear_acceleration_covariance
================================================================================
MSG: std_msgs/Header
builtin_interfaces/Time stamp
string frame_id
================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec
================================================================================
MSG: geometry_msgs/Quaternion
float64 x
float64 y
float64 z
float64 w
================================================================================
MSG: geometry_msgs/Vector3
float64 x
float64 y
float64 z"""


def mcap_ros2_file(path):
    from mcap_ros2.writer import Writer

    with open(path, "wb") as f:
        writer = Writer(f)
        schema = writer.register_msgdef("sensor_msgs/msg/Imu", IMU_DEFINITION)
        for i in range(50):
            ns = START + i * 5_000_000
            writer.write_message("/imu", schema, {
                "header": {"stamp": {"sec": ns // SECOND, "nanosec": ns % SECOND}, "frame_id": "base_link"},
                "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0},
                "orientation_covariance": [0.0] * 9,
                "angular_velocity": {"x": 0.0, "y": 0.0, "z": 0.001 * i},
                "angular_velocity_covariance": [0.0] * 9,
                "linear_acceleration": {"x": 0.0, "y": 0.0, "z": 9.80665},
                "linear_acceleration_covariance": [0.0] * 9,
            }, log_time=ns, publish_time=ns)
        writer.finish()
    return path


def huge_image(path):
    import struct
    from mcap.writer import Writer

    cdr = b"\x00\x01\x00\x00" + struct.pack("<iI", 1, 0) + struct.pack("<I", 1) + b"\x00"  # stamp, frame_id ""
    cdr += b"\x00" * 3 + struct.pack("<II", 0xFFFFFFFF, 1)  # aligned to 4: height, width
    cdr += struct.pack("<I", 5) + b"rgb8\x00" + b"\x01"  # encoding, is_bigendian
    cdr += b"\x00" * 2 + struct.pack("<I", 0xFFFFFFFF) + struct.pack("<I", 0)  # aligned: step, data (empty)
    with open(path, "wb") as f:
        writer = Writer(f)
        writer.start(profile="ros2", library="ros2_bag.py")
        schema = writer.register_schema("sensor_msgs/msg/Image", "ros2msg", b"")
        channel = writer.register_channel("/cam", "cdr", schema)
        writer.add_message(channel, log_time=1, publish_time=1, data=cdr)
        writer.finish()
    return path


if __name__ == "__main__":
    if sys.argv[1] == "rosbags":
        print(rosbags_bag(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "mcap-ros2":
        print(mcap_ros2_file(sys.argv[2]))
    elif sys.argv[1] == "huge-image":
        print(huge_image(sys.argv[2]))
    else:
        sys.exit(__doc__)

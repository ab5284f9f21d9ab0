"""The peers for Benchmarks/mcap: PyPI `mcap` with `mcap-protobuf-support`, the MCAP format's reference implementation.

  mcap_peer.py read TRACE.mcap [REPEATS]
      Reads every message and decodes it (protobuf through the file's own descriptors), consuming its x, y and z,
      as the Swift reader does with each gyroscope sample.
  mcap_peer.py convert TRACE.jsonl OUT.mcap [REPEATS] [SCHEMA-SOURCE.mcap]
      What `hal convert` does for a gyroscope trace: parse each JSON line (orjson when installed, else json), build
      the hal.MotionSample message from the same descriptors (taken from SCHEMA-SOURCE.mcap, a file the Swift
      converter wrote; TRACE.mcap by default), and write it with mcap's Writer (zstd chunks).
"""
import sys
import time

from mcap.reader import make_reader
from mcap_protobuf.decoder import DecoderFactory


def read(path):
    count = 0
    total = 0.0
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for _, _, _, sample in reader.iter_decoded_messages(log_time_order=False):
            total += sample.x + sample.y + sample.z
            count += 1
    return count, total


def convert(source, target, schema_data):
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from mcap.writer import CompressionType, Writer
    try:
        import orjson as json
    except ImportError:
        import json
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(schema_data).file:
        pool.Add(file)
    MotionSample = message_factory.GetMessageClass(pool.FindMessageTypeByName("hal.MotionSample"))
    count = 0
    with open(source, "rb") as f, open(target, "wb") as out:
        header = json.loads(f.readline())
        writer = Writer(out, compression=CompressionType.ZSTD)
        writer.start(profile="hal", library="mcap_peer.py")
        schema = writer.register_schema(name="hal.MotionSample", encoding="protobuf", data=schema_data)
        channel = writer.register_channel(topic=header["channels"][0]["id"], message_encoding="protobuf", schema_id=schema)
        sample = MotionSample()
        for line in f:
            record = json.loads(line)
            sample.x, sample.y, sample.z = record["v"]
            t = record["t"]
            writer.add_message(channel_id=channel, log_time=t, publish_time=t, data=sample.SerializeToString(), sequence=count)
            count += 1
        writer.finish()
    return count


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "read":
        repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
        best = 0.0
        for _ in range(repeats):
            start = time.perf_counter()
            count, total = read(path)
            seconds = time.perf_counter() - start
            best = max(best, count / seconds)
            print(f"python-mcap read {count} samples in {seconds:.3f} s (checksum {total})")
        print(f"RESULT python-mcap-protobuf best {int(best)} samples/s")
    elif mode == "convert":
        target = sys.argv[3]
        repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 3
        # The schema the Swift writer puts in its files: the same descriptors.
        with open(sys.argv[5] if len(sys.argv) > 5 else path.replace(".jsonl", ".mcap"), "rb") as f:
            summary = make_reader(f).get_summary()
        schema_data = next(s.data for s in summary.schemas.values() if s.name == "hal.MotionSample")
        best = 0.0
        for _ in range(repeats):
            start = time.perf_counter()
            count = convert(path, target, schema_data)
            seconds = time.perf_counter() - start
            best = max(best, count / seconds)
            print(f"python-mcap converted {count} records in {seconds:.3f} s")
        print(f"RESULT python-mcap-writer best {int(best)} records/s")
    else:
        sys.exit("usage: mcap_peer.py read TRACE.mcap [REPEATS] | convert TRACE.jsonl OUT.mcap [REPEATS] [SCHEMA-SOURCE.mcap]")


if __name__ == "__main__":
    main()

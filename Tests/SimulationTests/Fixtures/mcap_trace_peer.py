#!/usr/bin/env python3
"""Reads a HAL trace written as MCAP with the field's own tools, for the MCAPTraceTests.

  mcap_trace_peer.py decode TRACE.mcap TRACE.jsonl
      Decodes every message with PyPI `mcap` and `mcap-protobuf-support` (protobuf) or json, with CRCs checked,
      and compares each with the record of the same index in the JSON Lines trace: the topic, the log time and
      the values a Foxglove panel would show. Prints a summary line per schema.
  mcap_trace_peer.py rewrite TRACE.mcap OUT.mcap
      Writes the trace again with PyPI `mcap`'s Writer (zstd chunks), every protobuf message decoded and serialised
      again by Python's protobuf (which leaves out fields at their default, orders fields by number and keeps
      unknown ones), the JSON messages as they are: a HAL trace another implementation wrote, for the reader.
  mcap_trace_peer.py sound TRACE.mcap
      Decodes every foxglove.RawAudio message and prints, per topic, the messages, the frames, the sample rate, the
      channels, the first message's time and the sum of the absolute samples.
  mcap_trace_peer.py schemas TRACE.mcap
      Checks that every foxglove.* message in the file's protobuf descriptors is Foxglove's own, field by field
      (name, number, type, label, message type), against PyPI `foxglove-schemas-protobuf`.

Exits 1 with a message on the first difference.
"""
import json
import math
import sys
from collections import Counter

from mcap.reader import make_reader
from mcap_protobuf.decoder import DecoderFactory


def fail(message):
    print(message)
    sys.exit(1)


def same(a, b, what):
    if isinstance(a, float) or isinstance(b, float):
        ok = (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    else:
        ok = a == b
    if not ok:
        fail(f"{what}: MCAP has {a!r}, the JSON Lines trace {b!r}")


def decode(mcap_path, jsonl_path):
    with open(jsonl_path) as f:
        header = json.loads(f.readline())
        records = [json.loads(line) for line in f]
    kinds = {c["id"]: c["kind"] for c in header["channels"]}
    counts = Counter()
    with open(mcap_path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()], validate_crcs=True)
        if reader.get_header().profile != "hal":
            fail(f"profile {reader.get_header().profile!r}")
        index = 0
        for schema, channel, message in reader.iter_messages(log_time_order=False):
            if index >= len(records):
                fail(f"more messages than the trace's {len(records)} records")
            record = records[index]
            where = f"message {index} ({channel.topic})"
            same(channel.topic, record["ch"], where + " topic")
            same(message.log_time, record["t"], where + " log time")
            kind = kinds[record["ch"]]
            if channel.message_encoding == "json":
                value = json.loads(message.data)
                same(value, record, where)
            else:
                decoder = DecoderFactory().decoder_for("protobuf", schema)
                check(kind, decoder(message.data), record, where)
            counts[schema.name] += 1
            index += 1
        if index != len(records):
            fail(f"{index} messages, and the trace has {len(records)} records")
        summary = reader.get_summary()
        same(summary.statistics.message_count, len(records), "statistics message count")
    for name, count in sorted(counts.items()):
        print(f"{name} {count}")


def check(kind, m, r, where):
    if kind in ("gyroscope", "accelerometer", "magnetometer"):
        for axis, value in zip("xyz", r["v"]):
            same(getattr(m, axis), float(value), f"{where} {axis}")
    elif kind == "attitude":
        q = m.pose.orientation
        for name, value in zip("wxyz", r["q"]):
            same(getattr(q, name), float(value), f"{where} q.{name}")
        same(m.timestamp.seconds * 1_000_000_000 + m.timestamp.nanos, r["t"], f"{where} timestamp")
        # The heading accuracy is ours, beyond Foxglove's schema: protobuf keeps it as unknown field 1000.
        from google.protobuf.unknown_fields import UnknownFieldSet
        import struct
        unknown = {f.field_number: f.data for f in UnknownFieldSet(m)}
        if "hacc" in r:
            same(struct.unpack("<d", struct.pack("<Q", unknown.get(1000, 0)))[0], float(r["hacc"]), f"{where} hacc")
        elif unknown:
            fail(f"{where}: unknown fields {unknown}")
    elif kind == "location":
        if r["mode"] == "none":
            if not (math.isnan(m.latitude) and math.isnan(m.longitude)):
                fail(f"{where}: a fix with no position has {m.latitude}, {m.longitude}")
        else:
            same(m.latitude, float(r["lat"]), f"{where} latitude")
            same(m.longitude, float(r["lon"]), f"{where} longitude")
        same(m.altitude, float(r.get("alt", 0)), f"{where} altitude")
        pairs = {p.key: p.value for p in m.metadata}
        same(pairs.get("mode"), r["mode"], f"{where} metadata mode")
        for key in ("hacc", "vacc", "speed", "course"):
            if key in r:
                same(float(pairs[key]), float(r[key]), f"{where} metadata {key}")
        if "hacc" in r:
            same(m.position_covariance[0], float(r["hacc"]) ** 2, f"{where} covariance")
            same(m.position_covariance_type, 2, f"{where} covariance type")
        same(m.frame_id, r["ch"], f"{where} frame_id")
    elif kind == "camera":
        if r["format"] in ("MJPG", "PNG"):
            same(m.format, "png" if r["format"] == "PNG" else "jpeg", f"{where} format")
        else:
            same(m.width, r["width"], f"{where} width")
            same(m.height, r["height"], f"{where} height")
            same(m.step, r.get("stride", 0), f"{where} step")
        folder = sys.argv[3].rsplit("/", 1)[0] if "/" in sys.argv[3] else "."
        with open(folder + "/" + r["file"], "rb") as f:
            same(m.data, f.read(), f"{where} data")
    elif kind == "pointer":
        same(m.phase, r["phase"], f"{where} phase")
        same(m.pointer, r["pointer"], f"{where} pointer")
        same(m.x, float(r["x"]), f"{where} x")
        same(m.y, float(r["y"]), f"{where} y")
    elif kind == "keys":
        same(m.code, r["code"], f"{where} code")
        same(m.state, r["state"], f"{where} state")
    elif kind == "expression":
        if "face" not in r:
            same(m.HasField("face"), False, f"{where} face")
        else:
            same([m.face.x, m.face.y, m.face.width, m.face.height], r["face"], f"{where} face")
            for name, value in r["scores"].items():
                same(getattr(m.scores, name), float(value), f"{where} scores.{name}")
            same(m.faces, r.get("faces", 1), f"{where} faces")
    elif kind == "speaker":
        same(m.phase, r["phase"], f"{where} phase")
        same(m.WhichOneof("item"), "clip" if "clip" in r else "speech", f"{where} item")
        same(m.clip if "clip" in r else m.speech, r.get("clip", r.get("speech")), f"{where} text")
    elif kind == "app":
        same(m.name, r["event"], f"{where} name")
        same(m.level, 2, f"{where} level")
        data = r.get("data")
        if data is None:
            same(m.message, r["event"], f"{where} message")
        else:
            same(json.loads(m.message[len(r["event"]) + 1:]), data, f"{where} message data")
    else:
        fail(f"{where}: kind {kind} in protobuf")


def rewrite(source, target):
    from mcap.writer import CompressionType, Writer

    with open(source, "rb") as f, open(target, "wb") as out:
        reader = make_reader(f, decoder_factories=[DecoderFactory()], validate_crcs=True)
        header = reader.get_header()
        summary = reader.get_summary()
        writer = Writer(out, compression=CompressionType.ZSTD)
        writer.start(profile=header.profile, library="mcap_trace_peer.py")
        for metadata in reader.iter_metadata():
            writer.add_metadata(metadata.name, metadata.metadata)
        schema_ids, channel_ids = {}, {}
        for schema in summary.schemas.values():
            schema_ids[schema.id] = writer.register_schema(schema.name, schema.encoding, schema.data)
        for channel in sorted(summary.channels.values(), key=lambda c: c.id):
            channel_ids[channel.id] = writer.register_channel(
                channel.topic, channel.message_encoding, schema_ids.get(channel.schema_id, 0), channel.metadata)
        factory = DecoderFactory()
        for schema, channel, message in reader.iter_messages(log_time_order=False):
            data = message.data
            if channel.message_encoding == "protobuf":
                data = factory.decoder_for("protobuf", schema)(message.data).SerializeToString()
            writer.add_message(channel_ids[channel.id], message.log_time, data, message.publish_time, message.sequence)
        writer.finish()


def sound(mcap_path):
    import struct
    topics = {}
    with open(mcap_path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()], validate_crcs=True)
        for schema, channel, message, audio in reader.iter_decoded_messages():
            if schema.name != "foxglove.RawAudio":
                continue
            if audio.format != "pcm-s16":
                fail(f"{channel.topic}: format {audio.format!r}")
            same(audio.timestamp.seconds * 1_000_000_000 + audio.timestamp.nanos, message.log_time, f"{channel.topic} timestamp")
            samples = struct.unpack(f"<{len(audio.data) // 2}h", audio.data)
            entry = topics.setdefault(channel.topic, {"messages": 0, "frames": 0, "rate": audio.sample_rate,
                                                      "channels": audio.number_of_channels, "first": message.log_time,
                                                      "energy": 0, "derived": channel.metadata.get("derived-from")})
            entry["messages"] += 1
            entry["frames"] += len(samples) // audio.number_of_channels
            entry["energy"] += sum(abs(x) for x in samples)
    for topic, e in sorted(topics.items()):
        print(f"{topic} messages {e['messages']} frames {e['frames']} rate {e['rate']} channels {e['channels']}"
              f" first {e['first']} energy {e['energy']} derived-from {e['derived']}")


def schemas(mcap_path):
    from google.protobuf import descriptor_pb2
    import foxglove_schemas_protobuf
    import importlib

    with open(mcap_path, "rb") as f:
        summary = make_reader(f).get_summary()
    checked = set()
    for schema in summary.schemas.values():
        if schema.encoding != "protobuf":
            continue
        fds = descriptor_pb2.FileDescriptorSet.FromString(schema.data)
        for file in fds.file:
            if file.package != "foxglove":
                continue
            for message in file.message_type:
                name = message.name
                if name in checked:
                    continue
                module = importlib.import_module(f"foxglove_schemas_protobuf.{name}_pb2")
                theirs = descriptor_pb2.FileDescriptorProto()
                getattr(module, name).DESCRIPTOR.file.CopyToProto(theirs)
                their_message = next(m for m in theirs.message_type if m.name == name)
                ours = sorted((f.name, f.number, f.type, f.label, f.type_name) for f in message.field)
                reference = sorted((f.name, f.number, f.type, f.label, f.type_name) for f in their_message.field)
                if ours != reference:
                    fail(f"foxglove.{name}: ours {ours}, Foxglove's {reference}")
                checked.add(name)
    print("foxglove schemas match:", " ".join(sorted(checked)))


if __name__ == "__main__":
    if sys.argv[1] == "decode":
        decode(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "rewrite":
        rewrite(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "sound":
        sound(sys.argv[2])
    elif sys.argv[1] == "schemas":
        schemas(sys.argv[2])
    else:
        fail("usage: mcap_trace_peer.py decode TRACE.mcap TRACE.jsonl | rewrite TRACE.mcap OUT.mcap | sound TRACE.mcap | schemas TRACE.mcap")

#!/usr/bin/env python3
"""What PyPI `mcap` finds in MCAP files, for `MCAPSummaryTests`.

    mcap_summary.py write DIR         writes files with no summary section into DIR and prints their names
    mcap_summary.py summarise FILE..  prints, as JSON by file name, what a stream read of each file finds, as
                                      canonical lines: the header, the messages' count and log-time range, the
                                      channels with their schemas and message counts, the chunks by compression with
                                      their sizes, the attachments and the metadata names

The figures come from every record in the file (chunks read as they are, then opened), not from its summary, so
that they check ours whether we read the summary or scan.
"""
import json
import os
import sys

from mcap.records import Attachment, Channel, Chunk, Header, Message, Metadata, Schema
from mcap.stream_reader import StreamReader, breakup_chunk
from mcap.writer import CompressionType, IndexType, Writer


def summarise(path):
    header, schemas, channels, counts = None, {}, {}, {}
    times, chunks, attachments, metadata = [], {}, [], []

    def take(record):
        nonlocal header
        if isinstance(record, Header):
            header = record
        elif isinstance(record, Schema):
            schemas.setdefault(record.id, record)
        elif isinstance(record, Channel):
            channels.setdefault(record.id, record)
        elif isinstance(record, Message):
            counts[record.channel_id] = counts.get(record.channel_id, 0) + 1
            times.append(record.log_time)
        elif isinstance(record, Attachment):
            attachments.append([record.name, record.media_type, len(record.data), record.log_time])
        elif isinstance(record, Metadata):
            metadata.append(record.name)

    with open(path, "rb") as stream:
        for record in StreamReader(stream, emit_chunks=True, validate_crcs=True).records:
            if isinstance(record, Chunk):
                entry = chunks.setdefault(record.compression, [0, 0, 0])
                entry[0] += 1
                entry[1] += len(record.data)
                entry[2] += record.uncompressed_size
                for inner in breakup_chunk(record, validate_crc=True):
                    take(inner)
            else:
                take(record)
    lines = [f"library={header.library} profile={header.profile}",
             f"messages={len(times)} start={min(times) if times else '-'} end={max(times) if times else '-'}"]
    for id, channel in sorted(channels.items()):
        schema = schemas.get(channel.schema_id)
        lines.append(f"channel id={id} topic={channel.topic} schema={f'{schema.name}/{schema.encoding}' if schema else '-'} "
                     f"encoding={channel.message_encoding} messages={counts.get(id, 0)}")
    for name, (count, compressed, uncompressed) in sorted(chunks.items()):
        lines.append(f"chunks compression={name} count={count} compressed={compressed} uncompressed={uncompressed}")
    lines += [f"attachment name={name} media={media} size={size} log={log}" for name, media, size, log in attachments]
    lines += [f"metadata name={name}" for name in metadata]
    return lines


def write(folder):
    """Files with no summary section: no statistics, no indexes, no schemas or channels repeated, no offsets."""
    bare = dict(use_statistics=False, index_types=IndexType.NONE, repeat_schemas=False, repeat_channels=False,
                use_summary_offsets=False)
    for name, options in [("no-summary", dict(bare, chunk_size=300, compression=CompressionType.LZ4)),
                          ("no-summary-unchunked", dict(bare, use_chunking=False))]:
        with open(f"{folder}/{name}.mcap", "wb") as stream:
            writer = Writer(stream, **options)
            writer.start(profile="x-summary-test", library="mcap_summary.py")
            imu = writer.register_schema(name="test.Imu", encoding="jsonschema", data=b'{"type":"object"}')
            a = writer.register_channel(topic="/imu", message_encoding="json", schema_id=imu)
            b = writer.register_channel(topic="/log", message_encoding="text", schema_id=0)
            for index in range(30):
                writer.add_message(channel_id=a if index % 3 else b, log_time=5_000_000_000 + index * 100_000_000,
                                   publish_time=5_000_000_000 + index * 100_000_000, sequence=index,
                                   data=json.dumps({"i": index}).encode())
                if index == 10:
                    writer.add_attachment(create_time=1, log_time=5_000_000_001, name="map.yaml", media_type="application/yaml",
                                          data=b"origin: [0, 0]\n")
                    writer.add_metadata(name="robot", data={"name": "r1"})
            writer.finish()
        print(name)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        print(json.dumps({os.path.basename(path): summarise(path) for path in sys.argv[2:]}))

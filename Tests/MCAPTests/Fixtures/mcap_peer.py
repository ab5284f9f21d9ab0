"""The MCAP reference implementation (PyPI `mcap`) on the tests' side of MCAPTests.

    mcap_peer.py read FILE                         every message through mcap's indexed reader and through its
                                                   stream reader (CRCs checked), as JSON
    mcap_peer.py write FILE COMPRESSION COUNT      a file from mcap's writer: COUNT messages on two channels,
                                                   chunks of 4 KiB, and one metadata record
"""
import hashlib
import json
import sys

from mcap.reader import make_reader
from mcap.stream_reader import StreamReader
from mcap.records import Message, Chunk
from mcap.writer import CompressionType, Writer


def read(path):
    with open(path, "rb") as f:
        reader = make_reader(f, validate_crcs=True)
        header = reader.get_header()
        summary = reader.get_summary()
        indexed = [
            [channel.topic, schema.name if schema else "", message.log_time, message.publish_time,
             message.sequence, message.data.hex()]
            for schema, channel, message in reader.iter_messages()
        ]
        metadata = [[m.name, m.metadata] for m in reader.iter_metadata()]
    with open(path, "rb") as f:
        streamed = 0
        compressions = set()
        for record in StreamReader(f, skip_magic=False, emit_chunks=True, validate_crcs=True).records:
            if isinstance(record, Chunk):
                compressions.add(record.compression)
        f.seek(0)
        for record in StreamReader(f, validate_crcs=True).records:
            if isinstance(record, Message):
                streamed += 1
    statistics = summary.statistics
    print(json.dumps({
        "profile": header.profile, "library": header.library,
        "messages": indexed, "streamed": streamed, "metadata": metadata,
        "compressions": sorted(compressions),
        "statistics": {
            "message_count": statistics.message_count, "channel_count": statistics.channel_count,
            "schema_count": statistics.schema_count, "chunk_count": statistics.chunk_count,
            "metadata_count": statistics.metadata_count,
            "start": statistics.message_start_time, "end": statistics.message_end_time,
            "per_channel": {str(k): v for k, v in sorted(statistics.channel_message_counts.items())},
        },
        "chunk_indexes": len(summary.chunk_indexes),
    }))


def write(path, compression, count):
    kinds = {"zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4, "none": CompressionType.NONE}
    with open(path, "wb") as f:
        writer = Writer(f, chunk_size=4096, compression=kinds[compression])
        writer.start(profile="", library="python mcap")
        schema = writer.register_schema(name="Counter", encoding="jsonschema",
                                        data=b'{"type":"object","properties":{"n":{"type":"integer"}}}')
        counter = writer.register_channel(topic="/counter", message_encoding="json", schema_id=schema,
                                          metadata={"unit": "1"})
        raw = writer.register_channel(topic="/raw", message_encoding="", schema_id=0)
        for i in range(count):
            channel = counter if i % 3 else raw
            data = json.dumps({"n": i}).encode() if channel == counter else hashlib.sha256(str(i).encode()).digest()
            writer.add_message(channel_id=channel, log_time=1_000_000 * i, publish_time=1_000_000 * i + 7,
                               sequence=i, data=data)
        writer.add_metadata("origin", {"tool": "mcap_peer.py", "count": str(count)})
        writer.finish()


if __name__ == "__main__":
    if sys.argv[1] == "read":
        read(sys.argv[2])
    elif sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("usage: mcap_peer.py read FILE | write FILE COMPRESSION COUNT")

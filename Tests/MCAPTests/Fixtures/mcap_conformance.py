#!/usr/bin/env python3
"""MCAP conformance with PyPI `mcap` (the format's reference implementation in Python).

    mcap_conformance.py write DIR   writes one file per variant of the specification into DIR and prints their names
    mcap_conformance.py read FILE   prints, as JSON, what PyPI `mcap` reads in FILE: every record in file order
                                    (the stream reader, chunks opened), the messages in log-time order (the seeking
                                    reader, through the indexes) and in file order (the non-seeking reader), the
                                    attachments and the metadata, each as one canonical line

The test suite (`MCAPConformanceTests`) reads each file with our reader in both modes and compares line for line.
"""
import json
import sys

from mcap.reader import NonSeekingReader, SeekingReader
from mcap.records import (Attachment, AttachmentIndex, Channel, ChunkIndex, DataEnd, Footer, Header, Message,
                          MessageIndex, Metadata, MetadataIndex, Schema, Statistics, SummaryOffset)
from mcap.stream_reader import StreamReader
from mcap.writer import CompressionType, IndexType, Writer


def record_line(record):
    if isinstance(record, Header):
        return f"Header profile={record.profile} library={record.library}"
    if isinstance(record, Schema):
        return f"Schema id={record.id} name={record.name} encoding={record.encoding} data={record.data.hex()}"
    if isinstance(record, Channel):
        return f"Channel id={record.id} schema={record.schema_id} topic={record.topic} encoding={record.message_encoding} metadata={sorted(record.metadata.items())}"
    if isinstance(record, Message):
        return f"Message channel={record.channel_id} seq={record.sequence} log={record.log_time} pub={record.publish_time} data={record.data.hex()}"
    if isinstance(record, MessageIndex):
        return f"MessageIndex channel={record.channel_id} entries={[list(entry) for entry in record.records]}"
    if isinstance(record, ChunkIndex):
        return (f"ChunkIndex start={record.message_start_time} end={record.message_end_time} offset={record.chunk_start_offset} "
                f"length={record.chunk_length} compression={record.compression} sizes={record.compressed_size},{record.uncompressed_size}")
    if isinstance(record, Attachment):
        return f"Attachment name={record.name} media={record.media_type} log={record.log_time} create={record.create_time} data={record.data.hex()}"
    if isinstance(record, AttachmentIndex):
        return f"AttachmentIndex offset={record.offset} length={record.length} name={record.name} media={record.media_type} size={record.data_size}"
    if isinstance(record, Metadata):
        return f"Metadata name={record.name} values={sorted(record.metadata.items())}"
    if isinstance(record, MetadataIndex):
        return f"MetadataIndex offset={record.offset} length={record.length} name={record.name}"
    if isinstance(record, Statistics):
        return (f"Statistics messages={record.message_count} schemas={record.schema_count} channels={record.channel_count} "
                f"attachments={record.attachment_count} metadata={record.metadata_count} chunks={record.chunk_count} "
                f"times={record.message_start_time},{record.message_end_time} counts={sorted(record.channel_message_counts.items())}")
    if isinstance(record, SummaryOffset):
        return f"SummaryOffset opcode={record.group_opcode} start={record.group_start} length={record.group_length}"
    if isinstance(record, DataEnd):
        return f"DataEnd crc={record.data_section_crc}"
    if isinstance(record, Footer):
        return f"Footer summary={record.summary_start} offsets={record.summary_offset_start} crc={record.summary_crc}"
    return f"Unknown {type(record).__name__}"


def message_line(schema, channel, message):
    return (f"{channel.topic} schema={schema.name if schema else '-'} seq={message.sequence} log={message.log_time} "
            f"pub={message.publish_time} data={message.data.hex()}")


def read(path):
    with open(path, "rb") as stream:
        records = [record_line(record) for record in StreamReader(stream, validate_crcs=True).records]
    # PyPI mcap 1.6.0's seeking reader raises KeyError on a file whose summary lacks a schema or a channel (which
    # the specification allows); its non-seeking reader then gives the log-time order.
    indexed_by = "seeking"
    try:
        with open(path, "rb") as stream:
            indexed = [message_line(*entry) for entry in SeekingReader(stream, validate_crcs=True).iter_messages(log_time_order=True)]
    except KeyError:
        indexed_by = "non-seeking"
        with open(path, "rb") as stream:
            indexed = [message_line(*entry) for entry in NonSeekingReader(stream, validate_crcs=True).iter_messages(log_time_order=True)]
    with open(path, "rb") as stream:
        streamed = [message_line(*entry) for entry in NonSeekingReader(stream, validate_crcs=True).iter_messages(log_time_order=False)]
    with open(path, "rb") as stream:
        reader = SeekingReader(stream, validate_crcs=True)
        attachments = [record_line(attachment) for attachment in reader.iter_attachments()]
    with open(path, "rb") as stream:
        reader = SeekingReader(stream, validate_crcs=True)
        metadata = [record_line(metadata) for metadata in reader.iter_metadata()]
    print(json.dumps({"records": records, "indexed": indexed, "streamed": streamed, "attachments": attachments, "metadata": metadata,
                      "indexedBy": [indexed_by]}))


def variants():
    """Each variant: a name, the Writer's options, and what to write."""
    base = dict(chunk_size=300)
    return [
        ("chunked-zstd", dict(base, compression=CompressionType.ZSTD), "plain"),
        ("chunked-lz4", dict(base, compression=CompressionType.LZ4), "plain"),
        ("chunked-none", dict(base, compression=CompressionType.NONE), "plain"),
        ("one-chunk", dict(chunk_size=1 << 20), "plain"),
        ("unchunked", dict(use_chunking=False), "plain"),
        ("summary-channels-not-schemas", dict(base, repeat_schemas=False), "plain"),
        ("summary-without-schemas-or-channels", dict(base, repeat_schemas=False, repeat_channels=False), "plain"),
        ("no-statistics", dict(base, use_statistics=False), "plain"),
        ("no-indexes", dict(base, index_types=IndexType.NONE), "plain"),
        ("chunk-index-only", dict(base, index_types=IndexType.CHUNK), "plain"),
        ("no-summary-offsets", dict(base, use_summary_offsets=False), "plain"),
        ("no-crcs", dict(base, enable_crcs=False), "plain"),
        ("data-crc", dict(base, enable_data_crcs=True), "plain"),
        ("out-of-order-unchunked", dict(use_chunking=False), "shuffled"),
        ("out-of-order-overlapping-chunks", dict(base), "shuffled"),
        ("out-of-order-no-indexes", dict(base, index_types=IndexType.NONE), "shuffled"),
        ("schemaless", dict(base), "schemaless"),
        ("empty", dict(), "empty"),
        ("attachments-and-metadata", dict(base), "attachments"),
        ("attachments-and-metadata-no-indexes", dict(base, index_types=IndexType.NONE), "attachments"),
        ("attachments-unchunked", dict(use_chunking=False), "attachments"),
        ("padded-records", dict(base), "padded"),
        ("padded-records-unchunked", dict(use_chunking=False), "padded"),
    ]


PADDING = b"\x00later fields\xff"


def pad_records(data):
    """The file with bytes after the known fields of every record but Message (whose data runs to the record's end)
    and Footer (read at a fixed place), as a writer of a later version of the specification may add; offsets,
    lengths and CRCs moved to match. Records inside chunks are left as they are: PyPI mcap 1.6.0 does not skip
    padding there."""
    import struct
    import zlib
    magic = data[:8]
    records, at = [], 8
    while at < len(data) - 8:
        opcode, length = data[at], struct.unpack_from("<Q", data, at + 1)[0]
        records.append((at, opcode, bytearray(data[at + 9:at + 9 + length])))
        at += 9 + length
    moved, shift = {}, 0
    for start, opcode, content in records:
        moved[start] = start + shift
        if opcode not in (0x05, 0x02):
            shift += len(PADDING)
    moved[at] = at + shift
    new = lambda offset: moved[offset]
    out = bytearray(magic)
    summary_start = None
    for start, opcode, content in records:
        if opcode == 0x08:  # Chunk Index: the chunk's place, its message indexes' places
            chunk_start, chunk_length = struct.unpack_from("<QQ", content, 16)
            struct.pack_into("<QQ", content, 16, new(chunk_start), new(chunk_start + chunk_length) - new(chunk_start))
            count = struct.unpack_from("<I", content, 32)[0]
            first = None
            for entry in range(36, 36 + count, 10):
                offset = struct.unpack_from("<Q", content, entry + 2)[0]
                first = offset if first is None else min(first, offset)
                struct.pack_into("<Q", content, entry + 2, new(offset))
            indexes_length = struct.unpack_from("<Q", content, 36 + count)[0]
            if first is not None:
                struct.pack_into("<Q", content, 36 + count, new(first + indexes_length) - new(first))
        elif opcode in (0x0A, 0x0D):  # Attachment Index, Metadata Index
            offset, length = struct.unpack_from("<QQ", content, 0)
            struct.pack_into("<QQ", content, 0, new(offset), new(offset + length) - new(offset))
        elif opcode == 0x0E:  # Summary Offset
            group_start, group_length = struct.unpack_from("<QQ", content, 1)
            struct.pack_into("<QQ", content, 1, new(group_start), new(group_start + group_length) - new(group_start))
        elif opcode == 0x0F and struct.unpack_from("<I", content, 0)[0] != 0:  # Data End: the data section's CRC
            struct.pack_into("<I", content, 0, zlib.crc32(out))
        if opcode == 0x02:  # Footer: the summary's places, and its CRC
            summary, offsets = struct.unpack_from("<QQ", content, 0)
            summary_start = new(summary) if summary else 0
            struct.pack_into("<QQ", content, 0, summary_start, new(offsets) if offsets else 0)
            if struct.unpack_from("<I", content, 16)[0] != 0:
                footer_start = len(out)
                head = bytes([opcode]) + struct.pack("<Q", len(content)) + bytes(content[:16])
                crc = zlib.crc32(bytes(out[summary_start:footer_start]) + head) if summary_start else zlib.crc32(head)
                struct.pack_into("<I", content, 16, crc)
        body = bytes(content) + (PADDING if opcode not in (0x05, 0x02) else b"")
        out += bytes([opcode]) + struct.pack("<Q", len(body)) + body
    return bytes(out + magic)


def write_variant(path, options, content):
    if content == "padded":
        write_variant(path, options, "attachments")
        with open(path, "rb") as stream:
            data = stream.read()
        with open(path, "wb") as stream:
            stream.write(pad_records(data))
        return
    with open(path, "wb") as stream:
        writer = Writer(stream, **options)
        writer.start(profile="conformance", library="mcap_conformance.py")
        if content == "empty":
            writer.finish()
            return
        gyro = writer.register_schema(name="test.Gyro", encoding="jsonschema", data=b'{"type":"object"}')
        pose = writer.register_schema(name="test.Pose", encoding="jsonschema", data=b'{"type":"object","title":"pose"}')
        a = writer.register_channel(topic="/gyro", message_encoding="json", schema_id=gyro, metadata={"unit": "rad/s"})
        b = writer.register_channel(topic="/pose", message_encoding="json", schema_id=pose)
        c = writer.register_channel(topic="/raw", message_encoding="raw", schema_id=0) if content == "schemaless" else None
        times = list(range(40))
        if content == "shuffled":
            # Log times out of order, some equal: log-time order must keep file order among equals.
            times = [(index * 7) % 40 // 2 for index in range(40)]
        for index, time in enumerate(times):
            channel = (a, b, c)[index % 3] if c is not None else (a, b)[index % 2]
            writer.add_message(channel_id=channel, log_time=1_000_000_000 + time * 10_000_000, publish_time=2_000_000_000 + index,
                               sequence=index, data=json.dumps({"i": index}).encode())
            if content == "attachments" and index in (5, 25):
                writer.add_attachment(create_time=index, log_time=1_000_000_000 + index, name=f"calibration-{index}.txt",
                                      media_type="text/plain", data=f"attachment {index}".encode())
                writer.add_metadata(name=f"run-{index}", data={"operator": "qa", "index": str(index)})
        writer.finish()


def write(folder):
    for name, options, content in variants():
        write_variant(f"{folder}/{name}.mcap", options, content)
        print(name)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        read(sys.argv[2])

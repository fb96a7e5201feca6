"""The write-ahead log of one served model: an append-only file of learn requests.

A record is ``length (u32) | crc32 (u32) | payload``, little-endian, where the payload
is ``seq (u64) | id length (u16) | id (UTF-8) | body`` and the CRC covers the payload.
``body`` is the request's JSON exactly as it was received and validated, so a replay
parses and applies it through the same code as the live request.

``read_log`` returns the good records in order and where they end: a last record cut
short or failing its CRC (a write that a crash interrupted, never acknowledged) ends
the log there, and ``Log`` truncates the file to that point before appending again.

Durability follows the fsync policy:

``always``
    a request is acknowledged once an fsync that started after its write has returned.
    Concurrent requests share fsyncs (group commit): a request that finds an fsync
    running waits for it, and the next fsync covers every write made meanwhile.
``group``
    a background thread fsyncs every ``GROUP_MS`` milliseconds when something was
    written; a request is acknowledged once written, so a power loss (not a kill -9:
    the page cache survives a process) may lose the last few milliseconds.
``none``
    never fsyncs (tests).

Positions are *logical* (bytes ever appended, never reset by truncation), so waiting
for "my write is synced" stays meaningful across a truncation after a snapshot.
"""
import os
import struct
import threading
import zlib

POLICIES = ("always", "group", "none")
GROUP_MS = 5
_HEAD = struct.Struct("<II")
_SEQ = struct.Struct("<QH")
MAX_RECORD = 1 << 30


def encode(seq, rid, body):
    """One record's bytes."""
    rid = (rid or "").encode()
    payload = _SEQ.pack(seq, len(rid)) + rid + body
    return _HEAD.pack(len(payload), zlib.crc32(payload)) + payload


def read_log(path):
    """``(records, good_end)``: the good records as ``(seq, id or None, body)`` in file
    order, and the offset where the last good record ends."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return [], 0
    records, pos = [], 0
    while pos + _HEAD.size <= len(data):
        length, crc = _HEAD.unpack_from(data, pos)
        start, end = pos + _HEAD.size, pos + _HEAD.size + length
        if length < _SEQ.size or length > MAX_RECORD or end > len(data):
            break  # cut short: a torn last write
        payload = data[start:end]
        if zlib.crc32(payload) != crc:
            break
        seq, n = _SEQ.unpack_from(payload)
        rid = payload[_SEQ.size:_SEQ.size + n].decode() or None
        records.append((seq, rid, payload[_SEQ.size + n:]))
        pos = end
    return records, pos


class FileIO:
    """The log file's operations (a test replaces them to simulate a crash)."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def write(self, data):
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]

    def fsync(self):
        os.fsync(self.fd)

    def truncate(self, size):
        os.ftruncate(self.fd, size)
        os.fsync(self.fd)

    def close(self):
        os.close(self.fd)


class Log:
    """An open log: ``append`` (under the model's writer lock), ``wait_durable``
    (outside it), ``truncate`` after a snapshot."""

    def __init__(self, path, policy, io=FileIO):
        if policy not in POLICIES:
            raise ValueError(f"fsync policy must be one of {', '.join(POLICIES)}, "
                             f"got {policy!r}")
        self.path, self.policy = path, policy
        records, end = read_log(path)
        if os.path.exists(path) and os.path.getsize(path) > end:
            with open(path, "r+b") as f:  # drop the torn tail before appending
                f.truncate(end)
                os.fsync(f.fileno())
        self.recovered = records
        self.io = io(path)
        self.io.fsync()  # what recovery read is on disk before anything is acknowledged
        self.size = end  # bytes in the file now
        self.written = self.synced = 0  # logical positions
        self._cond = threading.Condition()
        self._syncing = False

    def append(self, record):
        """Write one record; returns its logical end, for ``wait_durable``."""
        self.io.write(record)
        with self._cond:
            self.written += len(record)
            self.size += len(record)
            return self.written

    def wait_durable(self, position):
        """Return once the policy makes the write ending at ``position`` durable."""
        if self.policy != "always":
            return
        with self._cond:
            while self.synced < position:
                if self._syncing:
                    self._cond.wait()
                    continue
                self._syncing, target = True, self.written
                self._cond.release()
                try:
                    self.io.fsync()
                finally:
                    self._cond.acquire()
                    self._syncing = False
                    self._cond.notify_all()
                self.synced = max(self.synced, target)

    def sync_if_dirty(self):
        """The ``group`` policy's periodic fsync."""
        with self._cond:
            target = self.written
            if self.synced >= target or self._syncing:
                return
            self._syncing = True
        try:
            self.io.fsync()
        finally:
            with self._cond:
                self._syncing = False
                self.synced = max(self.synced, target)
                self._cond.notify_all()

    def truncate(self):
        """Empty the file: a snapshot (fsynced) now holds everything it held."""
        with self._cond:
            while self._syncing:
                self._cond.wait()
            self.io.truncate(0)
            self.size = 0
            self.synced = self.written
            self._cond.notify_all()

    def close(self):
        self.io.close()

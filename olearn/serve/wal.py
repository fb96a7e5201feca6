"""The write-ahead log of one served model: an append-only file of learn requests.

Format
------
A record is ``length (u32) | crc32 (u32) | payload``, little-endian, where the payload
is ``seq (u64) | id length (u16) | id (UTF-8) | [time (u64)] | body`` and the CRC covers
the payload.  When the id length's top bit (``0x8000``) is set, the id is followed by
the request's time in milliseconds since the epoch (for the idempotency window's age);
records written before that bit existed have no time.  ``body`` is the request's JSON
exactly as it was received and validated, so a replay parses and applies it through
the same code as the live request.  Seqs are consecutive: each record's seq is one more
than the record before it.

The contract: what a start does with what it finds
--------------------------------------------------
Reading the file from its start, record after record, the first thing that is not a
whole record with a good CRC and the next seq ends the *good prefix*.  What follows it
is either a **torn tail** or **damage**:

* a torn tail is what an interrupted write leaves at the end of the file, and only
  that: fewer bytes than a header; or a header whose length runs past the end of the
  file, when the bytes that are there do not hold the record whole (their CRC fails)
  and no record with a good CRC starts anywhere after it; or a header of zeros with
  nothing but zeros after it; or a last record (nothing follows it) whose CRC fails
  and which holds a run of zeros from one 512-byte boundary of the file to the next
  (or to its end): a write the disk had not finished (etcd's rule).  A torn tail was
  never acknowledged (an acknowledgement waits for the write and, with ``--fsync
  always``, for an fsync), so a start cuts it off, says so on stderr, and serves the
  model.
* anything else is damage: a bad CRC or an impossible length before the end of the
  file, a last record with a bad CRC and no zeroed sector (a flipped byte in a whole
  record), a length that runs past the end when the bytes that are there hold the
  record whole, or when a record with a good CRC follows; a seq that repeats, goes
  back or jumps; the first seq above the snapshot's seq + 1 (records missing), or a
  snapshot whose seq is ahead of the log's last.  Damage refuses that model's start
  (:class:`LogDamage`, one line: the file, the byte offset, the seq), changes nothing
  on disk, and leaves the choice to ``olearn serve repair --data-dir D --model M``
  (:func:`salvage`): keep the good prefix, or keep every record whose CRC holds (each
  skipped byte range named); the damaged file is kept aside under a new name.

A single flipped byte is always damage, never a torn tail, with one exception that the
zeroed-sector rule cannot tell apart: a flip that turns the last byte of the file into
a zero when that byte alone lies past a 512-byte boundary.

Failed writes and fsyncs
------------------------
A write or an fsync that fails (ENOSPC, EIO, ...) marks the log *broken*: nothing more
is acknowledged (the lesson of PostgreSQL's fsync failures: after a failed fsync the
kernel may have dropped the dirty pages, and a second fsync may succeed without writing
them).  Before anything else is appended, :meth:`Log.recover` cuts the file back to
the end of the last fsynced record and writes again, from memory, the records written
since (each kept in memory until an fsync covers it), then fsyncs.  When that fails
too, with ``--fsync always`` those records are dropped (none was acknowledged: their
requests are answered 503 and the store rebuilds the model without them); with
``group`` (which acknowledged them) they are kept in memory and the log stays broken,
refusing learn requests, until a rewrite and an fsync succeed.

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

Positions are *logical* (bytes ever appended, never reset by truncation, never reused
after records are dropped), so waiting for "my write is synced" stays meaningful across
a truncation after a snapshot and across a failure.
"""
import os
import struct
import threading
import time
import zlib

import numpy as np

POLICIES = ("always", "group", "none")
GROUP_MS = 5
_HEAD = struct.Struct("<II")
_SEQ = struct.Struct("<QH")
_TIME = struct.Struct("<Q")
TIMED = 0x8000
MAX_RECORD = 1 << 30
SECTOR = 512


class LogDamage(Exception):
    """Damage in a log (see the module docstring): ``path``, ``offset`` (bytes from the
    file's start), ``seq`` (the last good seq before it, or the record's own), and a
    one-line ``message``."""

    def __init__(self, path, offset, seq, what):
        self.path, self.offset, self.seq, self.what = path, offset, seq, what
        super().__init__(f"{path}: damaged at byte {offset} ({seq}): {what}")


class LogFailed(OSError):
    """A write or fsync of the log failed; the request is not acknowledged."""


def encode(seq, rid, body, when=None):
    """One record's bytes (raises ``UnicodeEncodeError`` for an id that is not text)."""
    rid = (rid or "").encode()
    n = len(rid)
    if rid:
        ms = round((time.time() if when is None else when) * 1000)
        payload = _SEQ.pack(seq, n | TIMED) + rid + _TIME.pack(ms) + body
    else:
        payload = _SEQ.pack(seq, n) + body
    return _HEAD.pack(len(payload), zlib.crc32(payload)) + payload


def decode(payload):
    """``(seq, id or None, time or None, body)`` of a payload whose CRC holds; raises
    ``ValueError`` when its fields do not fit."""
    if len(payload) < _SEQ.size:
        raise ValueError("shorter than its seq and id length")
    seq, n = _SEQ.unpack_from(payload)
    timed, n = n & TIMED, n & ~TIMED
    start = _SEQ.size + n
    end = start + (_TIME.size if timed else 0)
    if end > len(payload):
        raise ValueError("its id runs past its end")
    rid = payload[_SEQ.size:start].decode() or None
    when = _TIME.unpack_from(payload, start)[0] / 1000 if timed else None
    return seq, rid, when, payload[end:]


class Record:
    __slots__ = ("seq", "id", "time", "body", "offset", "end")

    def __init__(self, seq, rid, when, body, offset, end):
        self.seq, self.id, self.time, self.body = seq, rid, when, body
        self.offset, self.end = offset, end

    def __iter__(self):  # (seq, id, body), as read_log gave them
        return iter((self.seq, self.id, self.body))


class Scan:
    """What :func:`scan_log` found: ``records`` (the good prefix, :class:`Record`),
    ``end`` (where it ends), ``size`` (the file's), ``torn`` (a line describing a torn
    tail after ``end``, or None) and ``damage`` (a :class:`LogDamage`, or None)."""

    def __init__(self, path, records, end, size, torn=None, damage=None):
        self.path, self.records, self.end, self.size = path, records, end, size
        self.torn, self.damage = torn, damage

    @property
    def last_seq(self):
        return self.records[-1].seq if self.records else None


def _after(seq, snap_seq=None):
    if seq is not None:
        return f"after seq {seq}"
    if snap_seq is not None:
        return f"the first record, after the snapshot's seq {snap_seq}"
    return "the first record, no seq read"


def _record_at(data, pos):
    """``(Record, None)`` for a whole record with a good CRC at ``pos``, else
    ``(None, why)``."""
    length, crc = _HEAD.unpack_from(data, pos)
    end = pos + _HEAD.size + length
    if length < _SEQ.size or length > MAX_RECORD:
        return None, f"impossible record length {length}"
    if end > len(data):
        return None, "runs past the end"
    payload = data[pos + _HEAD.size:end]
    if zlib.crc32(payload) != crc:
        return None, "CRC mismatch"
    try:
        seq, rid, when, body = decode(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        return None, f"a record whose CRC holds does not decode ({exc})"
    return Record(seq, rid, when, body, pos, end), None


def _candidates(data, start):
    """Offsets at or after ``start`` where a record could begin (a plausible length
    that fits in the file, a seq below 2^48), in order; the CRC is checked later."""
    a = np.frombuffer(data, np.uint8)
    n = len(a)
    last = n - _HEAD.size - _SEQ.size  # a header and a seq must fit
    out = []
    for lo in range(start, last + 1, 1 << 20):
        hi = min(lo + (1 << 20), last + 1)
        idx = np.arange(lo, hi)
        length = (a[idx].astype(np.int64) | a[idx + 1].astype(np.int64) << 8
                  | a[idx + 2].astype(np.int64) << 16 | a[idx + 3].astype(np.int64) << 24)
        ok = (length >= _SEQ.size) & (length <= MAX_RECORD) & (idx + _HEAD.size + length <= n)
        ok &= (a[idx + 14] == 0) & (a[idx + 15] == 0)
        out.extend(idx[ok].tolist())
    return out


def _next_good(data, start):
    """The first whole record with a good CRC at or after ``start``, or None."""
    for pos in _candidates(data, start):
        rec, _ = _record_at(data, pos)
        if rec is not None:
            return rec
    return None


def _zeroed_sector(data, start, end):
    """True when a part of ``data[start:end]`` from one 512-byte boundary of the file to
    the next (or to ``end``) is all zeros."""
    pos = start
    while pos < end:
        stop = min((pos // SECTOR + 1) * SECTOR, end)
        if not any(data[pos:stop]):
            return True
        pos = stop
    return False


def scan(path, data, snap_seq=None):
    """:class:`Scan` of the log bytes ``data`` (``path`` names it in messages, and
    ``snap_seq``, the snapshot's seq, the seq before the first record's)."""
    records, pos, n, seq = [], 0, len(data), None

    def damage(what, at=None):
        return Scan(path, records, pos, n,
                    damage=LogDamage(path, pos if at is None else at,
                                     _after(seq, snap_seq), what))

    def torn(what):
        return Scan(path, records, pos, n, torn=f"{path}: cut a torn tail of {n - pos} "
                    f"bytes at byte {pos} ({_after(seq, snap_seq)}; {what}; never acknowledged)")

    while pos < n:
        if n - pos < _HEAD.size:
            return torn("a partial header")
        length, crc = _HEAD.unpack_from(data, pos)
        end = pos + _HEAD.size + length
        if length < _SEQ.size or length > MAX_RECORD:
            if not any(data[pos:]):
                return torn("zeros to the end")
            return damage(f"impossible record length {length}")
        if end > n:
            if zlib.crc32(data[pos + _HEAD.size:]) == crc:
                return damage(f"the length field says {length} bytes but the "
                              f"{n - pos - _HEAD.size} bytes to the end hold the record whole")
            later = _next_good(data, pos + 1)
            if later is not None:
                return damage(f"a record length of {length} runs past the end of the file, "
                              f"but a record with a good CRC (seq {later.seq}) starts at "
                              f"byte {later.offset}")
            return torn(f"a record of {length} bytes cut at {n - pos - _HEAD.size}")
        rec, why = _record_at(data, pos)
        if rec is None:
            if why == "CRC mismatch":
                if end < n:
                    return damage(f"CRC mismatch, and {n - end} bytes follow the record")
                if _zeroed_sector(data, pos, end):
                    return torn("the last record holds a zeroed sector")
                return damage("CRC mismatch in the last record (a whole record, not a "
                              "torn write: no zeroed sector)")
            return damage(why)
        if rec.seq < 1:
            return damage(f"seq {rec.seq} (seqs start at 1)")
        if seq is not None and rec.seq != seq + 1:
            kind = ("repeats" if rec.seq == seq else "goes back" if rec.seq < seq
                    else f"jumps ({rec.seq - seq - 1} missing)")
            return damage(f"seq {rec.seq} follows seq {seq}: the seq {kind}")
        records.append(rec)
        seq, pos = rec.seq, end
    return Scan(path, records, pos, n)


def scan_log(path, snap_seq=None):
    """:func:`scan` of the file at ``path`` (an absent file is an empty log)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        data = b""
    return scan(path, data, snap_seq)


def read_log(path):
    """``(records, good_end)``: the good prefix as ``(seq, id or None, body)`` in file
    order, and the offset where it ends (whatever follows: see :func:`scan_log`)."""
    s = scan_log(path)
    return [tuple(r) for r in s.records], s.end


def salvage(data):
    """Every whole record with a good CRC in ``data``, in file order, and the byte
    ranges ``(start, end)`` between them that hold none (what ``olearn serve repair
    --keep valid`` skips)."""
    records, skipped, pos, n = [], [], 0, len(data)
    while pos < n:
        rec = None
        if n - pos >= _HEAD.size:
            rec, _ = _record_at(data, pos)
        if rec is None:
            rec = _next_good(data, pos + 1)
            stop = rec.offset if rec is not None else n
            skipped.append((pos, stop))
            if rec is None:
                break
        records.append(rec)
        pos = rec.end
    return records, skipped


class FileIO:
    """The log file's operations (a test replaces them to simulate a crash or a failing
    disk: see :class:`FaultyIO`)."""

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

    def close(self):
        os.close(self.fd)


class FaultyIO(FileIO):
    """A test hook, chosen when ``OLEARN_TEST_FAULTS=FILE`` is set at the server's start:
    before each write, fsync or truncate of a log, when FILE exists and one of its
    words names the operation (``write``, ``fsync``, ``truncate``), the operation fails
    with ``OSError(ENOSPC)`` (``EIO`` when FILE also holds ``eio``); a failing write
    first writes half of its bytes, as a real one may.  The rest is :class:`FileIO`:
    tests of failed writes run the real code around it, in a real server process."""

    control = None

    def _fault(self, op):
        try:
            with open(self.control) as f:
                words = f.read().split()
        except OSError:
            return
        if op in words:
            import errno
            code = errno.EIO if "eio" in words else errno.ENOSPC
            raise OSError(code, f"{os.strerror(code)} (OLEARN_TEST_FAULTS)")

    def write(self, data):
        try:
            self._fault("write")
        except OSError:
            super().write(bytes(data)[:len(data) // 2])
            raise
        super().write(data)

    def fsync(self):
        self._fault("fsync")
        super().fsync()

    def truncate(self, size):
        self._fault("truncate")
        super().truncate(size)


def default_io():
    """:class:`FileIO`, or :class:`FaultyIO` when ``OLEARN_TEST_FAULTS`` names a file."""
    control = os.environ.get("OLEARN_TEST_FAULTS")
    if not control:
        return FileIO
    FaultyIO.control = control
    return FaultyIO


class Log:
    """An open log: ``append`` (under the model's writer lock), ``wait_durable``
    (outside it), ``recover`` (under the writer lock, after a failure), ``truncate``
    after a snapshot.  ``scan`` is the :class:`Scan` of the file, without damage (a
    torn tail is cut here)."""

    def __init__(self, path, policy, io=FileIO, scan=None):
        if policy not in POLICIES:
            raise ValueError(f"fsync policy must be one of {', '.join(POLICIES)}, "
                             f"got {policy!r}")
        self.path, self.policy = path, policy
        scan = scan_log(path) if scan is None else scan
        if scan.damage is not None:
            raise scan.damage
        if scan.torn is not None:
            with open(path, "r+b") as f:  # drop the torn tail before appending
                f.truncate(scan.end)
                os.fsync(f.fileno())
        self.recovered = [tuple(r) for r in scan.records]
        self.io = io(path)
        self.io.fsync()  # what recovery read is on disk before anything is acknowledged
        self.size = self.synced_size = scan.end  # bytes in the file: all, and fsynced
        self.written = self.synced = 0  # logical positions
        self.tail = bytearray()  # the bytes written since the last fsync (not ``none``)
        self.broken = None  # why, after a failed write or fsync, until recover()
        self.dropped = []   # logical ranges (after, upto] whose records were dropped
        self.drops = 0      # how many times records were dropped (the store rebuilds)
        self._cond = threading.Condition()
        self._syncing = False
        self.closed = False  # by close(): no fsync may start on the file any more

    def append(self, record):
        """Write one record; returns its logical end, for ``wait_durable``.  A failed
        write leaves the log broken (see :meth:`recover`) and raises ``OSError``."""
        if self.broken is not None:
            raise LogFailed(f"the log is broken ({self.broken})")
        try:
            self.io.write(record)
        except OSError as exc:
            with self._cond:
                self.broken = _reason(exc)
                self._cond.notify_all()
            raise
        with self._cond:
            self.written += len(record)
            self.size += len(record)
            if self.policy == "none":
                self.synced, self.synced_size = self.written, self.size
            else:
                self.tail += record
            return self.written

    def _lost(self, position):
        return any(after < position <= upto for after, upto in self.dropped)

    def durable(self, position):
        """Whether the write ending at ``position`` is in the log for good (the policy's
        sense)."""
        with self._cond:
            if self._lost(position):
                return False
            return self.policy != "always" or self.synced >= position

    def _synced(self, target):
        """Under the condition: an fsync covering logical ``target`` returned."""
        if target > self.synced:
            drop = target - self.synced
            del self.tail[:drop]
            self.synced_size += drop
            self.synced = target

    def wait_durable(self, position):
        """Return once the policy makes the write ending at ``position`` durable; raise
        :class:`LogFailed` when it was dropped or the log is broken (the caller then
        recovers it under the writer lock and asks :meth:`durable`)."""
        if self.policy != "always":
            return
        with self._cond:
            while self.synced < position:
                if self._lost(position) or self.broken is not None or self.closed:
                    why = self.broken or ("closed" if self.closed else "dropped")
                    raise LogFailed(f"the log could not be synced ({why})")
                if self._syncing:
                    self._cond.wait()
                    continue
                self._syncing, target = True, self.written
                self._cond.release()
                try:
                    self.io.fsync()
                    failed = None
                except OSError as exc:
                    failed = _reason(exc)
                finally:
                    self._cond.acquire()
                    self._syncing = False
                    self._cond.notify_all()
                if failed is not None:
                    self.broken = failed
                else:
                    self._synced(target)
            if self._lost(position):
                raise LogFailed("the request's record was dropped after a failed write")

    def sync_if_dirty(self):
        """The ``group`` policy's periodic fsync."""
        with self._cond:
            target = self.written
            if self.synced >= target or self._syncing or self.broken is not None or \
                    self.closed:
                return
            self._syncing = True
        self._sync_claimed(target)

    def _sync_claimed(self, target):
        """An fsync covering logical ``target``, ``_syncing`` claimed by the caller:
        released after it, the outcome recorded (``broken`` on a failure)."""
        try:
            self.io.fsync()
            failed = None
        except OSError as exc:
            failed = _reason(exc)
        finally:
            with self._cond:
                self._syncing = False
                if failed is not None:
                    self.broken = failed
                else:
                    self._synced(target)
                self._cond.notify_all()

    def recover(self):
        """After a failed write or fsync (under the writer lock): cut the file back to
        the end of its last fsynced record, write again from memory what was written
        since, fsync.  When that fails: with ``always`` the records written since are
        dropped (``drops`` grows: the store rebuilds the model) and the cut is tried
        alone; otherwise they stay in memory.  Raises ``OSError`` while the log is still
        broken."""
        if self.broken is None:
            return
        with self._cond:
            while self._syncing:
                self._cond.wait()
            self._syncing = True
        try:
            try:
                self.io.truncate(self.synced_size)
                if self.tail:
                    self.io.write(bytes(self.tail))
                if self.policy != "none":
                    self.io.fsync()
            except OSError as exc:
                if self.policy != "always" or not self.tail:
                    with self._cond:
                        self.broken = _reason(exc)
                    raise
                with self._cond:  # none of them was acknowledged: drop them
                    self.dropped.append((self.synced, self.written))
                    self.drops += 1
                    self.size = self.synced_size
                    self.synced = self.written
                    self.tail.clear()
                    self.broken = _reason(exc)
                self.io.truncate(self.synced_size)
                self.io.fsync()
            with self._cond:
                self._synced(self.written)
                self.size = self.synced_size
                self.broken = None
        finally:
            with self._cond:
                self._syncing = False
                self._cond.notify_all()

    def records(self):
        """The log's records as this process holds them: the file's up to the last
        fsync, then the ones written since (from memory), as :class:`Record`."""
        with open(self.path, "rb") as f:
            data = f.read(self.synced_size)
        with self._cond:
            data += bytes(self.tail)
        return scan(self.path, data).records

    def truncate(self):
        """Empty the file: a snapshot (fsynced) now holds everything it held."""
        with self._cond:
            while self._syncing:
                self._cond.wait()
            self._syncing = True
        try:
            self.io.truncate(0)
            if self.policy != "none":
                self.io.fsync()
            failed = None
        except OSError as exc:
            failed = _reason(exc)
        finally:
            with self._cond:
                self._syncing = False
                # every record is in the snapshot now; a file the cut failed on holds
                # only records at or below its seq, which a replay skips
                self.size = self.synced_size = self.size if failed else 0
                self.synced = self.written
                self.tail.clear()
                self.broken = failed
                self._cond.notify_all()
        if failed:
            raise OSError(failed)

    def close(self):
        """Close the file once no fsync runs, after an fsync of whatever was written
        (unless the policy is ``none``): a request whose record was written before a
        DELETE or a replace is durable, and its wait for the fsync ends well, instead of
        meeting a closed file."""
        with self._cond:
            while self._syncing:
                self._cond.wait()
            target = self.written
            sync = self.policy != "none" and self.broken is None and self.synced < target
            self._syncing = sync
        if sync:
            self._sync_claimed(target)
        with self._cond:
            self.closed = True
            self._cond.notify_all()
        self.io.close()


def _reason(exc):
    return " ".join(str(exc).split()) or type(exc).__name__

"""``olearn serve repair --data-dir D --model M [--keep prefix|valid]``: the choice that
a damaged log leaves to a person (see :mod:`.wal` for the log's contract).

Without ``--keep`` it diagnoses and changes nothing: the damage (the file, the byte
offset, the seq), then what each choice would keep.  ``--keep prefix`` keeps the good
prefix: the records before the first damage.  ``--keep valid`` keeps every record whose
CRC holds, in file order, and names each skipped byte range; records at or below the
snapshot's seq (already in it) and records whose seq repeats or goes back are left out
and named; when records are missing (a skipped range, a gap) the kept ones are
renumbered so that the seqs follow each other again, and the renumbering is said.  A
record that cannot be replayed (its CRC holds, the learner refuses it) counts as damage
too: ``prefix`` stops before it, ``valid`` skips it.

The new log is written beside the old one (temporary file, fsync) and renamed into
place; the damaged file is first linked to ``log.wal.damaged-TIME`` (a new name, never
over a file), so nothing is lost.  ``meta.json`` and the snapshot are only read: a
damaged one is reported and left to a person (a backup).  Run it while the server is
stopped, or while it reports the model as not served; start the server again to serve
the repaired model.
"""
import os
import secrets
import time

from . import wal
from .body import Limits, parse_learn
from .shapes import apply_learn, target_of
from .store import NAME, ModelDamage, check_log, fsync_dir, read_meta


class RepairError(Exception):
    """Nothing was changed: one line saying why."""


def _model(folder, meta):
    from .. import load, make
    snap = meta.get("snapshot")
    return load(os.path.join(folder, snap)) if snap else make(meta["algo"], **meta["params"])


def _replay(folder, meta, records, skip_failed):
    """The records (above the snapshot's seq) that replay on the snapshot, in order,
    and ``[(record, why)]`` of those that do not; without ``skip_failed`` it stops at
    the first that does not."""
    model, kept, failed = _model(folder, meta), [], []
    limits = Limits(1 << 62, 1 << 62, 1 << 62)
    for rec in records:
        try:
            apply_learn(model, parse_learn(rec.body, limits, target_of(model)))
        except Exception as exc:  # noqa: BLE001 (whatever the learner refuses)
            failed.append((rec, " ".join(str(exc).split())[:200] or type(exc).__name__))
            if not skip_failed:
                break
            model = _model(folder, meta)  # as it was before the failed record
            for k in kept:
                apply_learn(model, parse_learn(k.body, limits, target_of(model)))
            continue
        kept.append(rec)
    return kept, failed


def plan(folder, meta, data, path, keep):
    """``(records to keep, lines saying what is left out)`` for ``keep``."""
    snap_seq, notes = meta["seq"], []
    if keep == "prefix":
        s = wal.scan(path, data, snap_seq)
        records = [r for r in s.records if r.seq > snap_seq]
        if len(records) < len(s.records):
            notes.append(f"left out: {len(s.records) - len(records)} records at or below "
                         f"the snapshot's seq {snap_seq} (in the snapshot)")
        if records and records[0].seq != snap_seq + 1:
            notes.append(f"the log's first record above the snapshot is seq "
                         f"{records[0].seq}, not {snap_seq + 1}: nothing follows the "
                         "snapshot in order")
            records = []
        if s.damage is not None:
            notes.append(f"left out: bytes {s.end}..{s.size} after the good prefix")
    else:
        found, skipped = wal.salvage(data)
        for start, stop in skipped:
            notes.append(f"skipped bytes {start}..{stop} ({stop - start} bytes): no record "
                         "with a good CRC")
        records, last = [], snap_seq
        for r in found:
            if r.seq <= snap_seq:
                notes.append(f"left out: seq {r.seq} at byte {r.offset} (in the snapshot, "
                             f"seq {snap_seq})")
            elif r.seq <= last:
                notes.append(f"left out: seq {r.seq} at byte {r.offset} (after seq {last}: "
                             "it repeats or goes back)")
            else:
                records.append(r)
                last = r.seq
    kept, failed = _replay(folder, meta, records, skip_failed=(keep == "valid"))
    for rec, why in failed:
        notes.append(f"{'stopped at' if keep == 'prefix' else 'left out'}: seq {rec.seq} "
                     f"at byte {rec.offset} cannot be replayed ({why})")
    return kept, notes


def _encode_all(records, snap_seq, data):
    """The new log's bytes, and the renumbering ``[(old, new)]`` when seqs were missing."""
    out, renumbered = bytearray(), []
    for k, r in enumerate(records):
        seq = snap_seq + 1 + k
        if seq == r.seq:
            out += data[r.offset:r.end]
        else:
            renumbered.append((r.seq, seq))
            out += wal.encode(seq, r.id, r.body, r.time)
    return bytes(out), renumbered


def _span(records):
    return f"seq {records[0].seq}..{records[-1].seq}" if records else "none"


def repair(data_dir, name, keep=None, say=print):
    """Diagnose model ``name``'s log; with ``keep`` (``"prefix"`` or ``"valid"``)
    rewrite it.  Returns the exit code: 0 (whole, or repaired), 1 (damaged, diagnosis
    only)."""
    folder = os.path.join(os.path.abspath(data_dir), "models", name or "")
    if not NAME.match(name or "") or not os.path.isdir(folder):
        raise RepairError(f"no model named {name!r} in {data_dir}")
    meta_path, path = os.path.join(folder, "meta.json"), os.path.join(folder, "log.wal")
    try:
        meta = read_meta(meta_path)
        _model(folder, meta)
    except ModelDamage as exc:
        raise RepairError(f"{exc}; repair rewrites only the log: restore this file from "
                          "a backup") from None
    except Exception as exc:  # noqa: BLE001 (a snapshot that does not load)
        raise RepairError(f"{os.path.join(folder, str(meta.get('snapshot')))}: the model "
                          f"cannot be made from it ({' '.join(str(exc).split())[:200]}); "
                          "restore it from a backup") from None
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        data = b""
    s = wal.scan(path, data, meta["seq"])
    try:
        check_log(s, meta, meta_path)
        problem = None
    except ModelDamage as exc:
        problem = str(exc)
    if problem is None:
        records = [r for r in s.records if r.seq > meta["seq"]]
        _, failed = _replay(folder, meta, records, skip_failed=False)
        if failed:
            rec, why = failed[0]
            problem = (f"{path}: byte {rec.offset}, seq {rec.seq}: the record cannot be "
                       f"replayed: {why}")
    if problem is None:
        torn = f"; at the next start: {s.torn}" if s.torn else ""
        say(f"{path}: whole, {len(s.records)} records ({_span(s.records)}){torn}: "
            "nothing to repair")
        return 0
    say(f"damaged: {problem}")
    if keep is None:
        for choice in ("prefix", "valid"):
            kept, notes = plan(folder, meta, data, path, choice)
            say(f"--keep {choice}: would keep {len(kept)} records ({_span(kept)})")
            for line in notes:
                say(f"  {line}")
            renumbered = _encode_all(kept, meta["seq"], data)[1]
            if renumbered:
                say(f"  would renumber {len(renumbered)} records so that seqs follow "
                    f"each other (seq {renumbered[0][0]} would be {renumbered[0][1]})")
        say("nothing was changed; choose with --keep prefix or --keep valid")
        return 1
    kept, notes = plan(folder, meta, data, path, keep)
    new, renumbered = _encode_all(kept, meta["seq"], data)
    tmp = os.path.join(folder, f".log.wal.repair-{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(new)
            f.flush()
            os.fsync(f.fileno())
        aside = _aside(path)
        if os.path.exists(path):
            os.link(path, aside)  # fails rather than replace a file
        os.replace(tmp, path)
        fsync_dir(folder)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise RepairError(f"{path}: not repaired ({' '.join(str(exc).split())})") from None
    say(f"kept {len(kept)} records ({_span(kept)}) in {path}")
    for line in notes:
        say(f"  {line}")
    if renumbered:
        say(f"  renumbered {len(renumbered)} records so that seqs follow each other: "
            f"seq {renumbered[0][0]} is now {renumbered[0][1]}, ..., seq "
            f"{renumbered[-1][0]} is now {renumbered[-1][1]}")
    say(f"the damaged file is kept as {aside}; start the server to serve {name!r}")
    return 0


def _aside(path):
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate, k = f"{path}.damaged-{stamp}", 1
    while os.path.exists(candidate):
        k += 1
        candidate = f"{path}.damaged-{stamp}-{k}"
    return candidate

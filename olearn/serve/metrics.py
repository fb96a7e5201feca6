"""Prometheus text for ``GET /metrics``: requests and latencies by route and status,
requests refused by reason, snapshots (count, seconds, failures), and per model rows
learned, seq, log bytes, snapshot age (none before a first snapshot) and the replay of
its log at the start (seconds, records)."""
import threading
import time

#: the reason label of a refused request, by status
REASONS = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found",
           405: "method_not_allowed", 409: "conflict", 413: "too_large",
           500: "internal_error", 503: "unavailable"}
BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self):
        self._lock = threading.Lock()
        self.requests = {}    # (route, method, status) -> count
        self.latency = {}     # route -> [bucket counts..., sum, count]
        self.refused = {}     # reason -> count

    def observe(self, route, method, status, seconds):
        with self._lock:
            key = (route, method, status)
            self.requests[key] = self.requests.get(key, 0) + 1
            h = self.latency.get(route)
            if h is None:
                h = self.latency[route] = [0] * len(BUCKETS) + [0.0, 0]
            for i, b in enumerate(BUCKETS):
                if seconds <= b:
                    h[i] += 1
            h[-2] += seconds
            h[-1] += 1
            if status >= 400:
                why = REASONS.get(status, f"status_{status}")
                self.refused[why] = self.refused.get(why, 0) + 1

    def render(self, store):
        out = ["# HELP olearn_requests_total HTTP requests by route, method and status.",
               "# TYPE olearn_requests_total counter"]
        with self._lock:
            for (route, method, status), n in sorted(self.requests.items()):
                out.append(f'olearn_requests_total{{route="{route}",method="{method}",'
                           f'status="{status}"}} {n}')
            out += ["# HELP olearn_request_seconds Request latency by route.",
                    "# TYPE olearn_request_seconds histogram"]
            for route, h in sorted(self.latency.items()):
                for b, n in zip(BUCKETS, h):
                    out.append(f'olearn_request_seconds_bucket{{route="{route}",le="{b}"}} {n}')
                out.append(f'olearn_request_seconds_bucket{{route="{route}",le="+Inf"}} {h[-1]}')
                out.append(f'olearn_request_seconds_sum{{route="{route}"}} {h[-2]:.6f}')
                out.append(f'olearn_request_seconds_count{{route="{route}"}} {h[-1]}')
            out += ["# HELP olearn_refused_total Requests answered 4xx or 5xx, by reason.",
                    "# TYPE olearn_refused_total counter"]
            out += [f'olearn_refused_total{{reason="{why}"}} {n}'
                    for why, n in sorted(self.refused.items())]
        for metric, text, value in (
                ("olearn_snapshots_total", "Snapshots written.", store.snapshots),
                ("olearn_snapshot_seconds_total", "Seconds spent writing snapshots.",
                 round(store.snapshot_seconds_total, 6)),
                ("olearn_snapshot_failures_total", "Snapshots that failed (the log "
                 "keeps the model).", store.snapshot_failures)):
            out += [f"# HELP {metric} {text}", f"# TYPE {metric} counter", f"{metric} {value}"]
        now = time.time()
        gauges = (("olearn_rows_learned_total", "counter", "Rows learned by the model.",
                   lambda e: e.rows),
                  ("olearn_seq", "gauge", "Last acknowledged learn sequence number.",
                   lambda e: e.seq),
                  ("olearn_log_bytes", "gauge", "Bytes in the model's write-ahead log.",
                   lambda e: e.log.size),
                  ("olearn_snapshot_age_seconds", "gauge", "Seconds since the last snapshot.",
                   lambda e: None if e.snap_time is None else round(now - e.snap_time, 3)))
        gauges += (("olearn_replay_seconds", "gauge",
                    "Seconds the model's start took to read and replay its log.",
                    lambda e: round(e.replay_seconds, 6)),
                   ("olearn_snapshot_load_seconds", "gauge",
                    "Seconds the model's start took to load its snapshot.",
                    lambda e: round(e.load_seconds, 6)),
                   ("olearn_replay_records", "gauge",
                    "Log records the model's start replayed.", lambda e: e.replayed))
        entries = sorted(store.entries.items())
        for metric, kind, text, value in gauges:
            out += [f"# HELP {metric} {text}", f"# TYPE {metric} {kind}"]
            for name, e in entries:
                v = value(e) if not e.deleted and e.unavailable is None else None
                if v is not None:  # (no snapshot: no age, rather than a made-up one)
                    out.append(f'{metric}{{model="{name}"}} {v}')
        return "\n".join(out) + "\n"

"""Live updates: every batch of verdicts goes to each open page as server-sent events."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator

from senet_pi.service import Service

KEEPALIVE = 15.0  # seconds between comments that keep proxies and browsers from closing the stream


class Broker:
    """Fans the service's verdicts out to one queue per open event stream."""

    def __init__(self, service: Service) -> None:
        self._queues: list[queue.Queue] = []
        self._lock = threading.Lock()
        self.unsubscribe = service.subscribe(self._publish)

    def _publish(self, verdicts: list[dict]) -> None:
        with self._lock:
            for q in self._queues:
                q.put(verdicts)

    def stream(self, state: Callable[[], dict], keepalive: float = KEEPALIVE) -> Iterator[str]:
        """Server-sent events: the state at once, then each batch of verdicts followed by the new state."""
        q: queue.Queue = queue.Queue()
        with self._lock:
            self._queues.append(q)
        try:
            yield "retry: 1000\n\n"
            yield _event("state", state())
            while True:
                try:
                    verdicts = q.get(timeout=keepalive)
                except queue.Empty:
                    yield ": keepalive\n\n"
                    continue
                if verdicts is None:  # the server is stopping
                    return
                while not q.empty():  # a burst (a whole move) goes out as one update
                    more = q.get_nowait()
                    if more is None:
                        return
                    verdicts = verdicts + more
                yield _event("verdicts", verdicts)
                yield _event("state", state())
        finally:
            with self._lock:
                self._queues.remove(q)

    def close(self) -> None:
        """End every open stream (the server is stopping)."""
        with self._lock:
            for q in self._queues:
                q.put(None)
        self.unsubscribe()

    @property
    def listeners(self) -> int:
        return len(self._queues)


def _event(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"

"""Priority queues for the generic searches.

Both pop the smallest key first; keys are tuples whose first entry is the numeric priority.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import InvalidQueryError


class BinaryHeap:
    """A binary min-heap kept in a 1-based array: node i has children 2i and 2i + 1.

    >>> h = BinaryHeap()
    >>> for k in [5, 1, 3]: h.push((k,), str(k))
    >>> [h.pop()[1] for _ in range(3)]
    ['1', '3', '5']
    """

    def __init__(self) -> None:
        self._a: list[Any] = [None]

    def __len__(self) -> int:
        return len(self._a) - 1

    def push(self, key: tuple, item: Any) -> None:
        a = self._a
        a.append((key, item))
        i = len(a) - 1
        while i > 1 and a[i][0] < a[i // 2][0]:
            a[i], a[i // 2] = a[i // 2], a[i]
            i //= 2

    def peek(self) -> tuple[tuple, Any]:
        return self._a[1]

    def pop(self) -> tuple[tuple, Any]:
        a = self._a
        top = a[1]
        last = a.pop()
        n = len(a) - 1
        if n:
            a[1] = last
            i = 1
            while True:
                c = 2 * i
                if c > n:
                    break
                if c + 1 <= n and a[c + 1][0] < a[c][0]:
                    c += 1
                if not a[c][0] < a[i][0]:
                    break
                a[i], a[c] = a[c], a[i]
                i = c
        return top

    def items(self) -> list[Any]:
        return [item for _, item in self._a[1:]]


class BucketQueue:
    """Items in buckets of ``width`` priority units; pops the smallest key of the lowest
    non-empty bucket, so the order is exactly that of a heap.

    >>> q = BucketQueue(10)
    >>> for k in [15, 3, 27, 12, 8]: q.push((k,), k)
    >>> [q.pop()[1] for _ in range(5)]
    [3, 8, 12, 15, 27]
    """

    def __init__(self, width: float) -> None:
        if not (isinstance(width, (int, float)) and math.isfinite(width) and width > 0):
            raise InvalidQueryError(f"bucket width {width!r} must be a finite number > 0")
        self.width = float(width)
        self._buckets: dict[int, list] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def bucket_of(self, priority: float) -> int:
        return math.floor(priority / self.width)

    def push(self, key: tuple, item: Any) -> None:
        self._buckets.setdefault(self.bucket_of(key[0]), []).append((key, item))
        self._size += 1

    def _lowest(self) -> list:
        return self._buckets[min(self._buckets)]

    def peek(self) -> tuple[tuple, Any]:
        return min(self._lowest(), key=lambda e: e[0])

    def pop(self) -> tuple[tuple, Any]:
        b = min(self._buckets)
        bucket = self._buckets[b]
        k = min(range(len(bucket)), key=lambda i: bucket[i][0])
        entry = bucket.pop(k)
        if not bucket:
            del self._buckets[b]
        self._size -= 1
        return entry

    def items(self) -> list[Any]:
        return [item for b in sorted(self._buckets) for _, item in self._buckets[b]]

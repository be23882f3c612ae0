"""A small named-plugin registry (one per kind of piece: benchmarks, agents, ...)."""
from __future__ import annotations

from typing import Callable, Generic, Iterator, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Maps names to pieces; an unknown name raises ``KeyError`` listing the known ones."""

    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, item: T | None = None, *, replace: bool = False):
        """``registry.register("id", obj)`` or, as a decorator, ``@registry.register("id")``."""
        def add(obj: T) -> T:
            if not replace and name in self._items and self._items[name] is not obj:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._items[name] = obj
            return obj
        return add if item is None else add(item)

    def unregister(self, name: str) -> T:
        """Remove a piece (a test that registers its own cleans up with this)."""
        try:
            return self._items.pop(name)
        except KeyError:
            raise KeyError(f"{self.kind} {name!r} is not registered") from None

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except (KeyError, TypeError):
            raise KeyError(f"unknown {self.kind} {name!r}; known: {', '.join(sorted(self._items))}") from None

    def __contains__(self, name) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))

    def names(self) -> list[str]:
        return sorted(self._items)

    def items(self):
        return sorted(self._items.items())


def lazy_ref(ref: str) -> Callable:
    """A callable that imports ``"package.module:name"`` on its first call and calls it (a spec
    names a heavy piece, e.g. its ``--save-viz`` recorder, without importing it)."""
    def call(*args, **kw):
        import importlib
        module, _, name = ref.partition(":")
        return getattr(importlib.import_module(module), name)(*args, **kw)
    call.__name__ = call.__qualname__ = ref
    return call


def lazy(factory: Callable[[], T]) -> Callable[[], T]:
    """A factory called once, on first use (registries of heavy pieces stay cheap to import)."""
    cache: list[T] = []

    def get() -> T:
        if not cache:
            cache.append(factory())
        return cache[0]
    return get

"""Overloaded functions: the stubs fold into the implementation."""

import typing as t
from typing import overload

import typing_extensions


# Read a value as text or as a converted type.
@t.overload
def read(key: str) -> str: ...


@t.overload
def read(key: str, convert: t.Callable[[str], int]) -> int: ...


def read(key, convert=None):
    """Read `key` from the environment, converted when asked."""
    value = lookup(key)
    return convert(value) if convert else value


def lookup(key: str) -> str:
    return key.upper()


class Store:
    @overload
    def get(self, key: str) -> str: ...
    @overload
    def get(self, key: str, default: int) -> int: ...
    def get(self, key, default=None):
        """The stored value, or `default`."""
        return default

    @property
    def size(self) -> int:
        return 0

    @size.setter
    def size(self, value: int) -> None:
        pass


class Protocolish:
    @typing_extensions.overload
    def only_stubs(self, x: int) -> int: ...
    @typing_extensions.overload
    def only_stubs(self, x: str) -> str: ...

"""The exceptions tiergraph raises.

Every error tiergraph reports is a :class:`tiergraph.Error`. Errors found by the C++ engine (a
corrupted graph file, an impossible option, a budget that cannot hold the run) carry the same
message the command line prints. Bad arguments found in Python are also ``ValueError`` or
``TypeError``, and a missing source vertex is also a ``KeyError``, so code written for numpy or
networkx catches them as it would there.
"""

from ._core import Error


class InvalidInput(Error, ValueError):
    """An argument has the right type but a value tiergraph cannot use (negative ids, arrays of
    different lengths, NaN weights, an unknown option value)."""


class InvalidType(Error, TypeError):
    """An argument has a type tiergraph cannot take (a float array of ids, a dense matrix)."""


class NodeNotFound(Error, KeyError):
    """A source vertex (or node) that is not in the graph."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else ""


__all__ = ["Error", "InvalidInput", "InvalidType", "NodeNotFound"]

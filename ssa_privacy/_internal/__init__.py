"""Helpers shared by the whole package: input validation, solver settings, random numbers.

Not part of the public interface.
"""

__all__ = []

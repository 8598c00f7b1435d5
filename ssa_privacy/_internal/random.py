"""The package's one seed helper: a ``numpy.random.Generator`` from whatever seed was given.

Every function of the package that draws random numbers turns its ``seed`` (or ``rng``)
argument into a generator with :func:`random_generator`, and a mechanism records where its
randomness came from with :func:`seed_record`. A sequence of integers is the seed of a
study's task (``default_rng([seed, replication, ...])``), so that the same keys give the
same stream whoever draws from them.
"""

import numpy as np

__all__ = [
    "random_generator",
    "seed_record",
]


def _describe(seed):
    text = repr(seed)
    kind = type(seed).__name__
    return f"a {kind} ({text})" if len(text) <= 40 else f"a {kind}"


def _is_key(value):
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def random_generator(seed, name="seed"):
    """A ``numpy.random.Generator`` from a seed, checked by name.

    Parameters
    ----------
    seed : None, int, sequence of int, SeedSequence, BitGenerator or Generator
        None draws fresh operating-system entropy; an int or a non-empty sequence of ints
        (each >= 0) seeds ``numpy.random.default_rng`` (``default_rng(seed)``,
        ``default_rng(list(seed))``); a SeedSequence or BitGenerator is passed to
        ``default_rng``; a Generator is used as it is (its state is the caller's).
    name : str, optional
        The argument's name in error messages (default ``"seed"``).

    Returns
    -------
    numpy.random.Generator
        The generator.

    Raises
    ------
    TypeError
        For a bool, a float, a string, an empty sequence, a sequence holding anything but
        ints, or any other type.
    ValueError
        For a negative integer (alone or in a sequence).
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence | np.random.BitGenerator):
        return np.random.default_rng(seed)
    if isinstance(seed, list | tuple) and seed and all(_is_key(key) for key in seed):
        negative = [int(key) for key in seed if key < 0]
        if negative:
            raise ValueError(f"{name} keys must be non-negative integers, got {negative[0]}")
        return np.random.default_rng(list(seed))
    if not _is_key(seed):
        raise TypeError(
            f"{name} must be None, a non-negative int, a sequence of them, a SeedSequence or "
            f"a Generator, got {_describe(seed)}"
        )
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {int(seed)}")
    return np.random.default_rng(int(seed))


def seed_record(seed):
    """Where the randomness of ``seed`` came from, as a JSON-ready dict.

    Parameters
    ----------
    seed : object
        A seed accepted by :func:`random_generator` (call that first: this does not check).

    Returns
    -------
    dict
        ``{"seed": seed}`` for an int or a sequence of ints (as a list), ``{"seed": None}``
        for fresh entropy (which is deliberately not kept: with it, anyone holding a
        release could subtract its noise), ``{"seed": "generator"}`` for a Generator or a
        BitGenerator (its state is the caller's), ``{"seed": entropy, "spawn_key": key}``
        for a SeedSequence.
    """
    if isinstance(seed, np.random.Generator | np.random.BitGenerator):
        return {"seed": "generator"}
    if isinstance(seed, np.random.SeedSequence):
        return {"seed": seed.entropy, "spawn_key": list(seed.spawn_key)}
    if isinstance(seed, list | tuple):
        return {"seed": [int(key) for key in seed]}
    return {"seed": None if seed is None else int(seed)}

"""The privacy notions the package certifies, as a typed vocabulary.

A :class:`~ssa_privacy.privacy.mechanism.Certificate` states which guarantee it proves by
its ``notion``, a :class:`Notion`. The enum's members are strings (``enum.StrEnum``), so a
certificate's record, its JSON and its CSV column read exactly as before
(``Notion.PML == "pml"``), while a misspelt notion is refused when the certificate is made.

==========================  ===================================================  ==============
notion                      guarantee                                            paper
==========================  ===================================================  ==============
``"posterior-covariance"``  the adversary's posterior covariance of the          [TCB] (5)
                            sensitive inputs stays above ``alpha`` or ``Delta``
``"pml"``                   (epsilon, delta) pointwise maximal leakage           [LKC] Def. 2.2
``"dp"``                    (epsilon, delta)-differential privacy (pure when     [SMI] §2-4
                            delta = 0)
``"renyi-dp"``              Renyi DP of an order alpha, with its (epsilon,       [MAC] Th. 3.1
                            delta) conversion
==========================  ===================================================  ==============

A PML guarantee also names its convention (:data:`CONVENTIONS`): ``"exact"``, the PML as
defined, or ``"paper"``, [LKC] Theorem 3.2 as printed, which weighs the mutual information
twice (stricter, hence still sufficient; :doc:`/theory/pml`).
"""

import enum

__all__ = [
    "CONVENTIONS",
    "Notion",
    "as_notion",
    "convention_weight",
]

#: The two conventions of PML, and the weight ``w`` of I(X; Y) in the leakage
#: ``l(X -> y) = w I(X; Y) + xi / 2`` for each (:mod:`ssa_privacy.privacy.pml.leakage`).
CONVENTIONS = {"exact": 1.0, "paper": 2.0}


class Notion(enum.StrEnum):
    """A privacy guarantee a certificate can prove (the table of :mod:`ssa_privacy.privacy.notions`)."""

    POSTERIOR_COVARIANCE = "posterior-covariance"
    PML = "pml"
    DP = "dp"
    RENYI_DP = "renyi-dp"


def as_notion(value, name="notion"):
    """Return ``value`` as a :class:`Notion`.

    Parameters
    ----------
    value : Notion or str
        A member, or its string value (``"pml"``).
    name : str, optional
        The argument's name in error messages.

    Returns
    -------
    Notion
        The member.

    Raises
    ------
    TypeError
        If ``value`` is not a string.
    ValueError
        If ``value`` names no notion; the message lists the notions.
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a Notion or its name, got {type(value).__name__}")
    try:
        return Notion(value)
    except ValueError:
        known = ", ".join(repr(member.value) for member in Notion)
        raise ValueError(f"{name} {value!r} is not a privacy notion; use one of {known}") from None


def convention_weight(convention):
    """The weight ``w`` of ``I(X; Y)`` in the PML of a convention.

    Parameters
    ----------
    convention : {"exact", "paper"}
        ``"exact"``: the PML as defined (``w = 1``); ``"paper"``: [LKC] Theorem 3.2 as
        printed (``w = 2``).

    Returns
    -------
    float
        ``CONVENTIONS[convention]``.

    Raises
    ------
    ValueError
        For any other value (naming ``convention``).
    """
    if not isinstance(convention, str) or convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {sorted(CONVENTIONS)}, got {convention!r}")
    return CONVENTIONS[convention]

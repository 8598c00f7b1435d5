"""The noise covariances of a contact's releases, kept as its passes' blocks.

A contact (the overlapping passes of several stations,
:func:`~ssa_privacy.sensors.streams.contacts`) is released with a noise covariance per
filter that is block diagonal over its passes: each pass's sensor noise ``kron(I_K, R)``
plus its mechanism's privacy noise ``Theta`` (:mod:`ssa_privacy.privacy.pml.passes`).
:class:`ContactNoise` holds the blocks' terms and builds a filter's dense matrix only when
it is asked for, so that the contacts of a day do not hold every filter's dense matrix
at once.
"""

import numpy as np
from scipy import linalg

__all__ = ["ContactNoise"]


class ContactNoise:
    """The noise covariances (F, M, M) of a contact, kept as its passes' blocks.

    Each filter's matrix is block diagonal over the contact's passes; it is built when
    asked for and not stored. A contact of a near-geosynchronous object has up to eight
    stations' 20-minute passes (M up to 1,280 rows, blocks of at most 160): dense stacks
    of all its filters for every contact of a day took gigabytes.

    Parameters
    ----------
    terms : list of list of tuple
        Per filter, per pass of the contact (in order): ``(R, K, mechanism)``, the
        sensor's noise covariance (m, m), the pass's measurement count and the pass's
        mechanism (whose ``Theta``, the privacy noise covariance (m K, m K), is computed
        when needed), or None without privacy. The pass's block is
        ``kron(I_K, R) + mechanism.Theta``.

    Notes
    -----
    Indexing with an integer gives that filter's dense (M, M) matrix (a new array each
    time); with an array of integers, the ContactNoise of those filters (sharing the terms,
    no copy). ``numpy.asarray`` gives the dense (F, M, M) stack.
    """

    def __init__(self, terms):
        self.terms = list(terms)

    def __len__(self):
        return len(self.terms)

    @property
    def shape(self):
        """(F, M, M), as the dense stack's."""
        rows = sum(K * len(R) for R, K, _ in self.terms[0]) if self.terms else 0
        return (len(self.terms), rows, rows)

    def __getitem__(self, f):
        if np.ndim(f) == 0:
            return linalg.block_diag(*self.blocks(f))
        return ContactNoise([self.terms[int(k)] for k in np.asarray(f).ravel()])

    def blocks(self, f):
        """Filter f's diagonal blocks, one per pass, in order.

        Parameters
        ----------
        f : int
            The filter.

        Returns
        -------
        list of ndarray
            Per pass, ``kron(I_K, R) + Theta``, shape (m K, m K) (release units squared),
            or, when the pass's noise is independent across its K measurements (no
            mechanism, or one whose ``Theta_blocks`` is not None), its K blocks ``R +
            Theta_k`` (m, m): filter f's (M, M) matrix is their block diagonal. New
            arrays each call.
        """
        blocks = []
        for R, K, mechanism in self.terms[f]:
            split = None if mechanism is None else getattr(mechanism, "Theta_blocks", None)
            if mechanism is None or split is not None:
                blocks.extend(np.broadcast_to(R, (K, *R.shape)) + (0.0 if split is None else split))
                continue
            blocks.append(np.kron(np.eye(K), R) + mechanism.Theta)
        return blocks

    def __array__(self, dtype=None, copy=None):
        dense = np.array([self[f] for f in range(len(self))])
        return dense if dtype is None else dense.astype(dtype)

    def source(self, f):
        """An identity of filter f's terms, equal for filters that share them.

        Parameters
        ----------
        f : int
            The filter.

        Returns
        -------
        int
            Equal for two filters of this ContactNoise that share their terms (a subset
            that repeats a filter, as a split prior's components): their matrices are
            then equal.
        """
        return id(self.terms[f])

"""Orbit Ephemeris Messages (OEM, CCSDS 502.0-B-3) with covariance, and CCSDS time tags.

An OEM is a table of states of one object (position, velocity) at epochs, in a named
reference frame about a named centre, optionally with a 6 x 6 covariance at some epochs.
:func:`write_oem` writes an estimate of the package (e.g. an EKF track: states in km and
km/s, covariances in km^2, km^2/s and km^2/s^2) as one OEM segment; :func:`read_oem` reads
one back as an :class:`Ephemeris`. Both formats of the standard are supported, KVN (the
``key = value`` text) and XML (NDM/XML), chosen by the file's suffix when writing and by
its content when reading; the syntax is written and parsed by the ``ccsds-ndm`` package.

Conventions:

- ``TIME_SYSTEM = UTC``; epochs are ``YYYY-MM-DDThh:mm:ss.fffffffff`` (nanoseconds), and
  the ``epoch_jd`` of the package (a UTC Julian date counted in days of 86,400 s, as
  ``sgp4.api.jday`` counts it, so that a leap second has no time tag) is kept exactly:
  :func:`time_tags` and :func:`parse_time_tags` convert through integer nanoseconds.
  ``START_TIME`` and ``STOP_TIME`` are the first and last states' epochs (they bound the
  data, as the standard defines them). :func:`read_oem` returns the epoch 0 h UTC of the
  first state's day (exact in a float), so that ``epoch_jd + times`` are the epochs
  written, to the nanosecond.
- The covariance is stored, as the standard prescribes, as its lower triangle row by row
  (``CX_X``; ``CY_X CY_Y``; ...; ``CZ_DOT_X ... CZ_DOT_Z_DOT``), one block per state,
  with the state's epoch and ``COV_REF_FRAME`` equal to ``REF_FRAME``.
- Numbers are written by ``ccsds-ndm`` as Python's shortest round-trip representation
  (``repr``, at most 17 significant digits), so states and covariances read back equal
  to the last bit.
- Units: positions km, velocities km/s, covariances km^2, km^2/s and km^2/s^2. KVN data
  lines carry no units; the ``units`` attributes of XML are checked (anything else is
  refused, naming the keyword).
- A covariance must be symmetric positive semi-definite: :class:`Ephemeris`,
  :func:`write_oem` and :func:`read_oem` refuse a negative variance (naming its keyword)
  and a matrix whose correlation matrix ``C = D^-1/2 P D^-1/2`` (``D`` its diagonal, a
  zero variance scaled by 1) has an eigenvalue below ``-1e-8``
  (:data:`~ssa_privacy._internal.matrix_validation.PSD_RTOL`). The tolerance is relative
  to each coordinate's own scale because an OEM covariance mixes units: position
  variances of 1e-2 km^2 sit beside velocity variances of 1e-8 km^2/s^2, and a tolerance
  relative to the largest entry would let a velocity variance of -1e-11 km^2/s^2 pass.
  Why 1e-8: by Weyl's inequality, errors of relative size e in the entries of ``C``
  (whose entries are at most 1 in size) move its eigenvalues by at most 6 e, so the
  rounding of a computed covariance (e about 1e-16 per operation, 1e-12 after a long
  filter run) stays far inside the tolerance, while a negative variance gives an
  eigenvalue of -1 or below.
- Names and comments must read back as given (as in :mod:`ssa_privacy.sensors.tdm`: one
  line of printable text; in KVN printable ASCII, lines of at most 254 characters, no
  comment starting with ``=``). An object name that ends in ``[...]`` (catalogue names
  such as ``STARLINK-11186 [DTC]``), which a KVN reader would take for units, is written
  in KVN with its last brackets made parentheses (``OBJECT_NAME = STARLINK-11186
  (DTC)``) and given whole in a metadata comment (:data:`NAME_COMMENT`,
  ``COMMENT OBJECT_NAME as given: STARLINK-11186 [DTC]``); :func:`read_oem` gives the
  name back from that comment after checking that it matches ``OBJECT_NAME``. Other
  names ending in ``[...]`` (frame, centre, identifier) are refused.

Reading KVN: ``ccsds-ndm`` 3.1.1 evaluates ``typing.get_type_hints`` again for every data
line it reads (about 2.6 ms per line); while a message is parsed here, the library's
``kvn_builder`` module is given a memoized ``get_type_hints`` (same results, about 17
times faster), and its own ``typing`` is put back afterwards. XML needs no help.

References
----------
CCSDS 502.0-B-3, "Orbit Data Messages", Blue Book, April 2023 (section 5: the OEM, its
covariance, KVN and XML); CCSDS 505.0-B, "XML Specification for Navigation Data Messages"
(the NDM/XML 4.0.0 schemas); CCSDS 301.0-B-4, "Time Code Formats" (the ASCII calendar
segmented time code, section 3.5); the ``ccsds-ndm`` package by E. Imre.
"""

from dataclasses import dataclass, field

import numpy as np
from ccsds_ndm.models import ndmxml4
from ccsds_ndm.models.ndmxml4.ndmxml_4_0_0_common_4_0 import (
    OdmHeader,
    OemCovarianceMatrixType,
    PositionCovarianceType,
    PositionTypeUo,
    PositionVelocityCovarianceType,
    StateVectorAccType,
    VelocityCovarianceType,
    VelocityTypeUo,
)

from ssa_privacy._internal.ccsds import (
    _comments,
    _creation_date,
    _file_format,
    _frozen,
    _increasing,
    _kvn_value,
    _render,
    _text,
    _write,
    time_tags,
)
from ssa_privacy._internal.matrix_validation import PSD_RTOL, symmetric_matrix
from ssa_privacy._internal.validation import as_finite_array, scalar

__all__ = [
    "COVARIANCE_KEYWORDS",
    "Ephemeris",
    "NAME_COMMENT",
    "kvn_object_name",
    "oem_text",
    "read_oem",
    "write_oem",
]

#: Keywords of the covariance's lower triangle, row by row (CCSDS 502.0-B-3, OEM covariance).
COVARIANCE_KEYWORDS = (
    "CX_X",
    "CY_X",
    "CY_Y",
    "CZ_X",
    "CZ_Y",
    "CZ_Z",
    "CX_DOT_X",
    "CX_DOT_Y",
    "CX_DOT_Z",
    "CX_DOT_X_DOT",
    "CY_DOT_X",
    "CY_DOT_Y",
    "CY_DOT_Z",
    "CY_DOT_X_DOT",
    "CY_DOT_Y_DOT",
    "CZ_DOT_X",
    "CZ_DOT_Y",
    "CZ_DOT_Z",
    "CZ_DOT_X_DOT",
    "CZ_DOT_Y_DOT",
    "CZ_DOT_Z_DOT",
)
#: Row and column of each covariance keyword (0-based, state order x, y, z, vx, vy, vz).
_COVARIANCE_INDEX = tuple((i, j) for i in range(6) for j in range(i + 1))
#: The ``ccsds-ndm`` field of each covariance keyword, and its value class.
_COVARIANCE_FIELDS = tuple(
    (
        keyword.lower(),
        PositionCovarianceType
        if i < 3
        else (PositionVelocityCovarianceType if j < 3 else VelocityCovarianceType),
    )
    for keyword, (i, j) in zip(COVARIANCE_KEYWORDS, _COVARIANCE_INDEX)
)
_STATE_FIELDS = ("x", "y", "z", "x_dot", "y_dot", "z_dot")


@dataclass(frozen=True, eq=False)
class Ephemeris:
    """An object's states at epochs, optionally with covariances: the content of an OEM.

    Parameters
    ----------
    object_name : str
        The object's name (``OBJECT_NAME``), e.g. ``"ISS (ZARYA)"``.
    object_id : str
        Its identifier (``OBJECT_ID``): the international designator ``YYYY-NNNP`` by the
        standard's recommendation, or a catalogue number.
    frame : str
        Reference frame of the states (``REF_FRAME``), e.g. ``"TEME"``, ``"GCRF"``.
    epoch_jd : float
        Julian date (UTC) of ``t = 0``.
    times : array_like, shape (E,)
        Seconds since ``epoch_jd``, strictly increasing, at least one.
    states : array_like, shape (E, 6)
        Position (km) and velocity (km/s) in ``frame``.
    covariances : array_like, shape (E, 6, 6), optional
        Covariance of each state (km^2, km^2/s, km^2/s^2 blocks), symmetric to a relative
        1e-8 (:data:`~ssa_privacy._internal.matrix_validation.SYMMETRY_RTOL`; stored
        symmetrized) and positive semi-definite (module docstring: no negative variance,
        correlation eigenvalues at least -1e-8), or None.
    center : str
        Origin of the frame (``CENTER_NAME``), default ``"EARTH"``.
    comments : sequence of str
        One-line comments of the segment (``COMMENT``), stripped of surrounding blanks.

    Raises
    ------
    TypeError
        If a name is not a str, or a number is not real.
    ValueError
        On an empty or multi-line name, non-finite numbers, times that do not increase,
        shapes that do not match, or a covariance that is asymmetric, has a negative
        variance or is indefinite (naming it, e.g. ``covariances[3]``, and the keyword of
        a negative variance).

    Notes
    -----
    Frozen; the arrays are read-only copies. Instances compare by identity (arrays have
    no single truth value). CCSDS 502.0-B-3, section 5.
    """

    object_name: str
    object_id: str
    frame: str
    epoch_jd: float
    times: np.ndarray
    states: np.ndarray
    covariances: np.ndarray | None = None
    center: str = "EARTH"
    comments: tuple = field(default=())

    def __post_init__(self):
        for name in ("object_name", "object_id", "frame", "center"):
            object.__setattr__(self, name, _text(getattr(self, name), name))
        object.__setattr__(self, "epoch_jd", scalar(self.epoch_jd, "epoch_jd"))
        times = as_finite_array(self.times, "times", ndim=1)
        if times.size == 0:
            raise ValueError("times must hold at least one epoch")
        _increasing(times, "times")
        states = as_finite_array(self.states, "states", ndim=2)
        if states.shape != (times.size, 6):
            raise ValueError(f"states must have shape ({times.size}, 6), got {states.shape}")
        covariances = self.covariances
        if covariances is not None:
            covariances = as_finite_array(covariances, "covariances", ndim=3)
            if covariances.shape != (times.size, 6, 6):
                raise ValueError(
                    f"covariances must have shape ({times.size}, 6, 6), got {covariances.shape}"
                )
            covariances = np.stack(
                [_covariance(c, f"covariances[{k}]") for k, c in enumerate(covariances)]
            )
            covariances = _frozen(covariances)
        object.__setattr__(self, "times", _frozen(times))
        object.__setattr__(self, "states", _frozen(states))
        object.__setattr__(self, "covariances", covariances)
        object.__setattr__(self, "comments", _comments(self.comments, "comments"))


def _covariance(matrix, name):
    """A symmetric positive semi-definite covariance (symmetrized), or ValueError naming it.

    No variance is negative, and the correlation matrix ``D^-1/2 P D^-1/2`` (a zero
    variance scaled by 1) has no eigenvalue below ``-PSD_RTOL`` (module docstring)."""
    matrix = symmetric_matrix(matrix, name)
    variances = np.diag(matrix)
    if np.any(variances < 0):
        i = int(np.flatnonzero(variances < 0)[0])
        keyword = COVARIANCE_KEYWORDS[_COVARIANCE_INDEX.index((i, i))]
        raise ValueError(f"{name}, {keyword}: the variance {float(variances[i])!r} is negative")
    scale = np.sqrt(np.where(variances > 0, variances, 1.0))
    smallest = np.linalg.eigvalsh(matrix / np.outer(scale, scale))[0]
    if smallest < -PSD_RTOL:
        raise ValueError(
            f"{name} is not positive semi-definite: its correlation matrix has the eigenvalue "
            f"{smallest:.3g} (below -{PSD_RTOL:g})"
        )
    return matrix


def write_oem(
    path,
    object_name,
    object_id,
    epoch_jd,
    times,
    states,
    covariances=None,
    frame="TEME",
    center="EARTH",
    originator="ssa_privacy",
    comments=(),
    *,
    file_format=None,
    creation_jd=None,
):
    """Write an ephemeris (with covariances) as a CCSDS OEM, atomically.

    Parameters
    ----------
    path : str or path-like
        The file; its folder is created if missing. Written through a temporary file
        renamed into place (:func:`ssa_privacy.engine.output.atomic_path`).
    object_name, object_id : str
        ``OBJECT_NAME`` and ``OBJECT_ID`` (see :class:`Ephemeris`).
    epoch_jd : float
        Julian date (UTC) of ``t = 0``.
    times : array_like, shape (E,)
        Seconds since ``epoch_jd``, strictly increasing.
    states : array_like, shape (E, 6)
        Position (km) and velocity (km/s) in ``frame``.
    covariances : array_like, shape (E, 6, 6), optional
        Covariances (km^2, km^2/s, km^2/s^2), symmetric; one block per state is written
        (lower triangle, the state's epoch, ``COV_REF_FRAME = frame``).
    frame : str
        ``REF_FRAME`` (default ``"TEME"``, the frame of SGP4 and of the package's states).
    center : str
        ``CENTER_NAME`` (default ``"EARTH"``).
    originator : str
        ``ORIGINATOR`` of the header.
    comments : sequence of str
        One-line ``COMMENT`` lines of the segment's metadata.
    file_format : {"kvn", "xml"}, optional
        Default: ``"xml"`` for a ``.xml`` suffix, else ``"kvn"``.
    creation_jd : float, optional
        ``CREATION_DATE`` as a UTC Julian date (for reproducible files); default now.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError, ValueError
        As :class:`Ephemeris` and :func:`oem_text`, naming the argument; nothing is
        written then.

    Notes
    -----
    CCSDS 502.0-B-3, section 5 (OEM 3.0: header, one metadata block, data lines, covariance
    blocks); written by ``ccsds-ndm``. ``START_TIME`` and ``STOP_TIME`` are the first and
    last states' epochs.
    """
    ephemeris = Ephemeris(
        object_name, object_id, frame, epoch_jd, times, states, covariances, center, comments
    )
    file_format = _file_format(path, file_format).name.lower()
    text = oem_text(ephemeris, originator, file_format=file_format, creation_jd=creation_jd)
    return _write(path, text)


def oem_text(ephemeris, originator="ssa_privacy", *, file_format="kvn", creation_jd=None):
    """The text of a CCSDS OEM of an :class:`Ephemeris`, without writing it.

    Parameters
    ----------
    ephemeris : Ephemeris
        The states (and covariances) of one object: one segment.
    originator : str
        ``ORIGINATOR`` of the header.
    file_format : {"kvn", "xml"}
        The format (default KVN).
    creation_jd : float, optional
        ``CREATION_DATE`` as a UTC Julian date (for reproducible text); default now.

    Returns
    -------
    str
        The message, ending with a newline (module docstring for the conventions).

    Raises
    ------
    TypeError
        If ``ephemeris`` is not an Ephemeris or ``originator`` not a str.
    ValueError
        For a bad ``originator``, ``file_format`` or ``creation_jd``, or (KVN) a name,
        frame or comment that is not printable ASCII, makes a line longer than 254
        characters, ends in ``[...]`` (but for the object name: module docstring) or (a
        comment) starts with ``=``, naming it.

    Notes
    -----
    CCSDS 502.0-B-3, section 5; rendered by ``ccsds-ndm``.
    """
    if not isinstance(ephemeris, Ephemeris):
        raise TypeError(f"ephemeris must be an Ephemeris, got {type(ephemeris).__name__}")
    originator = _text(originator, "originator")
    file_format = _file_format("", file_format)
    name, comments = ephemeris.object_name, list(ephemeris.comments)
    if file_format.name == "KVN":
        name, note = kvn_object_name(name)
        comments = comments if note is None else [note, *comments]
        _kvn_ephemeris(ephemeris, originator, name)
    header = OdmHeader(creation_date=_creation_date(creation_jd), originator=originator)
    tags = time_tags(ephemeris.epoch_jd, ephemeris.times)
    metadata = ndmxml4.OemMetadata(
        comment=comments,
        object_name=name,
        object_id=ephemeris.object_id,
        center_name=ephemeris.center,
        ref_frame=ephemeris.frame,
        time_system="UTC",
        start_time=tags[0],
        stop_time=tags[-1],
    )
    vectors = [
        StateVectorAccType(
            epoch=tag,
            **{
                name: (PositionTypeUo if i < 3 else VelocityTypeUo)(value=float(value))
                for i, (name, value) in enumerate(zip(_STATE_FIELDS, state))
            },
        )
        for tag, state in zip(tags, ephemeris.states)
    ]
    blocks = []
    if ephemeris.covariances is not None:
        for tag, matrix in zip(tags, ephemeris.covariances):
            values = {
                name: kind(value=float(matrix[i, j]))
                for (name, kind), (i, j) in zip(_COVARIANCE_FIELDS, _COVARIANCE_INDEX)
            }
            blocks.append(
                OemCovarianceMatrixType(epoch=tag, cov_ref_frame=ephemeris.frame, **values)
            )
    data = ndmxml4.OemData(state_vector=vectors, covariance_matrix=blocks)
    message = ndmxml4.Oem(
        header=header,
        body=ndmxml4.OemBody(segment=[ndmxml4.OemSegment(metadata=metadata, data=data)]),
    )
    return _render(message, file_format)


#: The metadata ``COMMENT`` that gives an object name KVN cannot hold as it is (module
#: docstring).
NAME_COMMENT = "OBJECT_NAME as given: {name}"


def kvn_object_name(name):
    """``OBJECT_NAME`` of a KVN OEM for an object name, and the comment that gives the name.

    Parameters
    ----------
    name : str
        The object's name.

    Returns
    -------
    object_name : str
        ``name``, or, when it ends in ``[...]`` (which a KVN reader takes for units), the
        same with its last brackets made parentheses.
    comment : str or None
        :data:`NAME_COMMENT` holding ``name`` when ``object_name`` differs from it.

    Notes
    -----
    CCSDS 502.0-B-3, section 7.4 (units in square brackets after a KVN value).
    """
    if not (name.endswith("]") and "[" in name):
        return name, None
    start = name.rindex("[")
    return f"{name[:start]}({name[start + 1 : -1]})", NAME_COMMENT.format(name=name)


def _kvn_ephemeris(ephemeris, originator, object_name):
    """Check that the names, frame and comments of an OEM read back from KVN (ValueError);
    ``object_name`` is the ``OBJECT_NAME`` written (:func:`kvn_object_name`)."""
    _kvn_value(originator, "originator", "ORIGINATOR")
    _kvn_value(object_name, "object_name", "OBJECT_NAME")
    for name, keyword in (
        ("object_id", "OBJECT_ID"),
        ("center", "CENTER_NAME"),
        ("frame", "REF_FRAME"),
    ):
        _kvn_value(getattr(ephemeris, name), name, keyword)
    for k, comment in enumerate(ephemeris.comments):
        _kvn_value(comment, f"comments[{k}]", "COMMENT")


def read_oem(path):
    """Read a CCSDS OEM (KVN or XML) into an :class:`Ephemeris`.

    Parameters
    ----------
    path : str or path-like
        The file: OEM version 2.0 or 3.0, KVN or NDM/XML.

    Returns
    -------
    Ephemeris
        The states of every segment in order (the segments must describe one object in
        one frame about one centre, ``TIME_SYSTEM = UTC``), ``epoch_jd`` 0 h UTC of the
        first state's day (exact in a float, so that ``epoch_jd + times`` are the epochs
        to the nanosecond), and the covariances when every state has one at its epoch
        (else None when there are none). Comments are those of the segments' metadata
        and data, but for a :data:`NAME_COMMENT`, which gives ``object_name``.

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        Naming the file and, where it applies, the segment, the state or covariance block
        (and its epoch) and the keyword: not UTF-8, not a readable OEM, another message
        type, a time system other than UTC, segments of different objects or frames,
        units other than km, km/s, km**2, km**2/s and km**2/s**2, a covariance in another
        frame, at an epoch without a state, with a negative variance or not positive
        semi-definite (module docstring), states of which only some have a covariance,
        epochs that do not increase or lie outside ``START_TIME`` and ``STOP_TIME``, or
        non-finite numbers.

    Notes
    -----
    CCSDS 502.0-B-3, section 5; parsed by ``ccsds-ndm``. Accelerations in the data lines
    are not read.
    """
    # the reader builds this module's Ephemeris: it imports this module, so not at the top
    from ssa_privacy.orbits._oem_reading import _read_oem

    return _read_oem(path)

"""The text of element set files: decoding, numbered lines, and the runs of each format.

A file of element sets is UTF-8 text whose lines end in LF, CRLF or CR (a byte-order
mark starting a line is dropped: files joined by ``cat`` may carry one each). It may hold
TLE element sets (two- or three-line) and CCSDS OMMs (KVN or XML) one after another:
:func:`parts` splits it into runs of one format, every line keeping its number in the
file, so that each reader
(:func:`ssa_privacy.orbits.tle.read_catalogue`, :func:`ssa_privacy.orbits.omm.read_omm`)
names the file's own lines.

Where one format gives way to the other:

- an OMM starts at a line beginning ``CCSDS_`` (a KVN message's version keyword) or
  ``<`` (XML), outside an XML run;
- a TLE element set after an OMM starts at its TLE line 1 (``1`` and a blank, then the
  catalogue number, with a line starting ``2`` next), or at the line before it when that
  line is its name: neither blank, nor a KVN line (``KEYWORD = value`` or ``COMMENT``),
  nor XML (holding ``<`` or ``>``).
"""

import re
from dataclasses import dataclass

from ssa_privacy.orbits.tle_format import TLEError

__all__ = ["Part", "decode", "numbered_lines", "parts"]

_LINE_END = re.compile(r"\r\n|\r|\n")
#: A line an OMM may hold before a TLE name line: blank, KVN or XML.
_OMM_CONTENT = re.compile(r"\s*$|\s*COMMENT\b|\s*[A-Za-z0-9_]+\s*=|.*[<>]")
_TLE_LINE1 = re.compile(r"1 [ \dA-Z]{5}")


@dataclass(frozen=True)
class Part:
    """A run of lines of one format.

    Attributes
    ----------
    kind : {"tle", "omm"}
        The format.
    lines : tuple of (int, str)
        The file line number (1-based) and text of each line, blank ones included.
    """

    kind: str
    lines: tuple

    @property
    def first_line(self):
        """The file line number of the run's first non-blank line."""
        return next(number for number, text in self.lines if text.strip())

    @property
    def text(self):
        """The run's text, its lines joined by LF."""
        return "\n".join(text for _, text in self.lines)


def decode(raw, file):
    """The text of a file's bytes: UTF-8, a byte-order mark dropped.

    Parameters
    ----------
    raw : bytes
        The file's content.
    file : str
        The file, for the error message.

    Returns
    -------
    str
        The text.

    Raises
    ------
    TLEError
        A ValueError naming the file and the line of the first byte that is not UTF-8.
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = len(_LINE_END.findall(raw[: error.start].decode("utf-8", "replace"))) + 1
        raise TLEError("the file is not UTF-8 text", file=file, file_line=line) from None


def numbered_lines(text):
    """The lines of a text split at LF, CRLF and CR only, numbered from 1.

    Other characters that :meth:`str.splitlines` would split at (form feed, U+2028, ...)
    stay in their line, where the readers refuse them. A byte-order mark starting a line
    (files joined by ``cat``, each with its own) is dropped.

    Parameters
    ----------
    text : str
        The text.

    Returns
    -------
    list of (int, str)
        The line number and the line, without its line end.
    """
    lines = [line.removeprefix("\ufeff") for line in _LINE_END.split(text)]
    if lines and not lines[-1]:
        lines.pop()
    return list(enumerate(lines, 1))


def _tle_line1_at(lines, index):
    """Whether line ``index`` starts a TLE element set: a line 1, then a line 2."""
    if not _TLE_LINE1.match(lines[index][1]):
        return False
    following = index + 1
    while following < len(lines) and not lines[following][1].strip():
        following += 1
    return following < len(lines) and lines[following][1].startswith("2 ")


def _starts(lines, index, kind):
    """The format of a run that line ``index`` starts, None if it continues the current
    run (of format ``kind``, None before the first non-blank line)."""
    text = lines[index][1]
    if text.lstrip().startswith("CCSDS_"):
        return None if kind == "kvn" else "kvn"
    if text.lstrip().startswith("<") and kind != "xml":
        return "xml"
    if kind in ("kvn", "xml") and _tle_line1_at(lines, index):
        return "tle"
    return "tle" if kind is None and text.strip() else None


def _name_line(run):
    """Take the last non-blank line of an OMM run, and the blank ones after it, off the run
    when it is not OMM content: it is the name line of the TLE element set that follows."""
    last = max(k for k, (_, text) in enumerate(run) if text.strip())
    if _OMM_CONTENT.match(run[last][1]):
        return []
    carried = run[last:]
    del run[last:]
    return carried


def _refuse_tables(lines, file):
    """Refuse JSON and CSV (CelesTrak's ``FORMAT=JSON`` and ``CSV``) by their first line."""
    number, text = next(((n, t) for n, t in lines if t.strip()), (None, ""))
    kind = "JSON" if text.lstrip()[:1] in ("[", "{") else None
    if text.lstrip().startswith("OBJECT_NAME,"):
        kind = "CSV"
    if kind:
        raise TLEError(
            f"the file is {kind}, which is not read here: element sets are read from TLE "
            "files (two- or three-line) and CCSDS OMMs in KVN or XML",
            file=file,
            file_line=number,
        )


def parts(lines, file):
    """Split numbered lines into runs of TLE element sets and OMMs, in file order.

    Parameters
    ----------
    lines : list of (int, str)
        :func:`numbered_lines` of the file.
    file : str
        The file, for the error message.

    Returns
    -------
    list of Part
        The runs (module docstring: where one format gives way to the other), none of
        them blank; an empty list for a blank file. Blank lines before the first run are
        left out, those after a run kept in it.

    Raises
    ------
    TLEError
        A ValueError naming the file and its first line if the file is JSON (starting with
        ``[`` or ``{``) or CSV (starting with ``OBJECT_NAME,``): CelesTrak serves its
        OMMs so too, but not as CCSDS KVN or XML.
    """
    _refuse_tables(lines, file)
    runs = []  # [format, lines]: format "tle", "kvn" or "xml"
    for index, (number, text) in enumerate(lines):
        start = _starts(lines, index, runs[-1][0] if runs else None)
        if start is None:
            if runs:
                runs[-1][1].append((number, text))
            continue
        carried = _name_line(runs[-1][1]) if start == "tle" and runs else []
        runs.append([start, carried + [(number, text)]])
    return [
        Part("tle" if kind == "tle" else "omm", tuple(run))
        for kind, run in runs
        if any(text.strip() for _, text in run)
    ]

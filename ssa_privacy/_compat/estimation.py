"""Legacy forms of the catalogue's tracking code, kept until 0.3.

The contact container moved from ``estimation.ekf`` to ``estimation.contacts``, and
orbit determination takes a :class:`~ssa_privacy.estimation.tracking.TrackingModel`
instead of a tuple. Each imports what it needs when called, so that ``import
ssa_privacy`` stays light.
"""

import functools
import importlib

from ssa_privacy._compat import MOVED_NAMES, _legacy_call, _warn

__all__ = ["tracking_model"]

# ``catalog_filter`` of 0.1 is served as ``estimation.ekf`` by the import hook, whose
# missing names land here.
for _module in ("ssa_privacy.estimation.ekf", "ssa_privacy.catalog_filter"):
    MOVED_NAMES[_module, "ContactMeasurements"] = (
        "ssa_privacy.estimation.contacts:ContactMeasurements"
    )


def tracking_model(model):
    """The TrackingModel and start index of a deprecated orbit-determination tuple.

    .. deprecated:: 0.2
        ``contact_orbit_determination(model, ...)`` takes a
        :class:`~ssa_privacy.estimation.tracking.TrackingModel` and ``start=``; removed
        in 0.3.

    Parameters
    ----------
    model : tuple
        ``(propagator, stations, earth, times, start)``.

    Returns
    -------
    model : TrackingModel
        Its propagator, stations, Earth and time grid.
    start : int
        The grid index of the prior.

    Raises
    ------
    ValueError
        If ``model`` is not a tuple of five.
    """
    if len(model) != 5:
        raise ValueError(
            "model must be a TrackingModel (or the deprecated tuple (propagator, "
            f"stations, earth, times, start)), got a tuple of {len(model)}"
        )
    _warn(
        "contact_orbit_determination with a model tuple",
        "ssa_privacy.estimation.tracking.TrackingModel and start=",
    )
    tracking = importlib.import_module("ssa_privacy.estimation.tracking")
    propagator, stations, earth, times, start = model
    return tracking.TrackingModel(propagator, stations, earth, times), start


@_legacy_call("ssa_privacy.estimation.orbit_determination", "contact_orbit_determination")
def _model_from_tuple(function):
    """``contact_orbit_determination`` that also takes the deprecated model tuple."""

    @functools.wraps(function)
    def adapted(model, *args, **kwargs):
        if isinstance(model, tuple):
            model, kwargs["start"] = tracking_model(model)
        return function(model, *args, **kwargs)

    return adapted


#: The arguments of ``track_contacts`` before it took a TrackingModel, in order.
_OLD_TRACK_ARGUMENTS = (
    "propagator",
    "earth",
    "stations",
    "times",
    "x0",
    "P0",
    "contacts",
    "evaluate",
    "filters",
    "psd",
    "diagnostics",
    "orbit_determination",
)


@_legacy_call("ssa_privacy.estimation.ekf", "track_contacts")
def _track_contacts_model(function):
    """``track_contacts`` that also takes the deprecated ``(propagator, earth, stations,
    times, x0, ...)`` form, ``psd=`` included."""

    @functools.wraps(function)
    def adapted(*args, **kwargs):
        tracking = importlib.import_module("ssa_privacy.estimation.tracking")
        first = args[0] if args else kwargs.get("model", kwargs.get("propagator"))
        if isinstance(first, tracking.TrackingModel):
            return function(*args, **kwargs)
        _warn(
            "track_contacts(propagator, earth, stations, times, ...)",
            "ssa_privacy.estimation.tracking.TrackingModel(...).track or "
            "track_contacts(model, x0, ...)",
        )
        named = dict(zip(_OLD_TRACK_ARGUMENTS, args, strict=False)) | kwargs
        psd = () if named.get("psd") is None else (named["psd"],)
        named.pop("psd", None)
        model = tracking.TrackingModel(
            named.pop("propagator"),
            named.pop("stations"),
            named.pop("earth"),
            named.pop("times"),
            *psd,
        )
        return function(model, **named)

    return adapted

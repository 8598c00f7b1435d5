"""Thread limits of the libraries a runner task uses (one task, one thread)."""

import contextlib

__all__ = ["one_heyoka_thread"]


@contextlib.contextmanager
def one_heyoka_thread():
    """Limit heyoka's TBB threads (its parallel compilation of integrators) to one during a
    task, as BLAS's, and restore the previous count after it (a serial run's tasks run in
    the calling process). Nothing where heyoka cannot be imported."""
    try:
        import heyoka
    except ImportError:
        yield
        return
    previous = heyoka.get_nthreads()
    heyoka.set_nthreads(1)
    try:
        yield
    finally:
        heyoka.set_nthreads(previous)

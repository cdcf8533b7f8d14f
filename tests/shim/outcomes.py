"""What a scenario run through real NumPy or the shim came to, in a form the two can be
compared in: the result's repr (or the exception's class name and message) and every
warning raised, by category name and message."""
import warnings


def outcome(fn, np):
    """``fn(np)``'s outcome: ``(repr of the result or of (exception class name, message),
    [(warning category name, message), ...])``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(np)
        except Exception as exc:  # noqa: BLE001 - compared with NumPy's
            result = (type(exc).__name__, str(exc))
    return repr(result), [(w.category.__name__, str(w.message)) for w in caught]

"""What the tracer needs to know of a jitted function it meets inside traced code.

The runtime's ``JitFunction`` sits above the tracer (it drives it), so the tracer cannot
import it; ``JitFunction`` subclasses ``Jitted`` instead, and the tracer inlines any
``Jitted`` by its Python function, keeping that function's ``fullgraph`` demand."""


class Jitted:
    """A jitted function: ``fn`` is the Python function, ``fullgraph`` whether it must be
    one graph."""

    fn = None
    fullgraph = False

"""npcompile's own graph passes over Inductor's post-grad graphs (one pass a module),
the ``npcompile::`` custom ops they insert, and ``pipeline``, the list Inductor runs."""

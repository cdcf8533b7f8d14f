"""Hypothesis profiles. CI runs the suite twice over the property tests: ``ci`` is
derandomized (the same examples every run, so a red run is reproducible as it is), and
``ci-random`` draws fresh examples from the seed .ci/run prints, so new counterexamples
keep surfacing; each one found becomes an explicit ``@example`` or regression test."""
import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", max_examples=30, deadline=None, derandomize=True, print_blob=True,
                          suppress_health_check=_QUIET)
settings.register_profile("ci-random", max_examples=10, deadline=None, derandomize=False, print_blob=True,
                          database=None, suppress_health_check=_QUIET)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=_QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

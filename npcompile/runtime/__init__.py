"""The call path of a jitted function: the compiled function and its cache entries, the
generated fast paths, where a call computes (devices) and process memory settings."""

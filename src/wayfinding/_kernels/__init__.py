"""Compiled kernels: typed arrays in, arrays out; no knowledge of the Python layers above."""

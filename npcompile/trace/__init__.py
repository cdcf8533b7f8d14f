"""The bytecode tracer: runs a user's function instruction by instruction on shim arrays
over fake tensors, recording the graph (through make_fx) and the guards it relied on."""

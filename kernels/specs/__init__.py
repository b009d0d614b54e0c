"""What a kernel is: its spec (source, parameters, inputs, launch, reference) and the registry of specs."""

"""Where kernel specs come from: the bundled catalog by name, and the user's files."""

"""The command line: argument handling apart from the rendering of verdicts."""
